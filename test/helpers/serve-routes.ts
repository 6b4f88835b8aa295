// Handler unit tests: a handler file's routes served by the real app on a real socket (127.0.0.1, a free port),
// with a fake backend; requests answer status, headers and the exact body.
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp, Route } from '../../src/http/app';
import { attachUpgrade } from '../../src/http/server';
import type { Authorizer } from '../../src/types/authz';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface Served {
  port: number;
  request(method: string, path: string, body?: string | Buffer, headers?: Record<string, string>): Promise<Answer>;
  close(): Promise<void>;
}

export async function serveRoutes(routes: Route[], o: { serverVersion?: string; authorizer?: Authorizer } = {}): Promise<Served> {
  const app = createApp({ routes, serverVersion: o.serverVersion ?? '0.0.0-test', authorizer: o.authorizer });
  const server = http.createServer(app);
  attachUpgrade(server, app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    request: (method, path, body, headers = {}) =>
      new Promise((resolve, reject) => {
        const r = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('latin1') }));
        });
        r.on('error', reject);
        if (body !== undefined) r.write(body);
        r.end();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The same routes served twice: with their lean paths (each lean call counted in `leanCalls`) and all through express. */
export interface LeanAndExpress {
  lean: Served;
  express: Served;
  leanCalls: number;
  close(): Promise<void>;
}

export async function serveLeanAndExpress(routes: Route[]): Promise<LeanAndExpress> {
  const both = { leanCalls: 0 } as LeanAndExpress;
  const counted = routes.map((r) => ({ ...r, lean: r.lean && { ...r.lean, handler: (...a: Parameters<NonNullable<typeof r.lean>['handler']>) => (both.leanCalls++, r.lean!.handler(...a)) } }));
  [both.lean, both.express] = await Promise.all([serveRoutes(counted), serveRoutes(routes.map((r) => ({ ...r, lean: undefined })))]);
  both.close = async () => void (await Promise.all([both.lean.close(), both.express.close()]));
  return both;
}

/** The raw answer (status line, headers in order, body) without its Date. */
export function rawAnswer(port: number, method: string, path: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => c.end(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let out = '';
    c.on('data', (d) => (out += d.toString('latin1')));
    c.on('end', () => resolve(out.replace(/^Date: .*\r\n/m, '')));
    c.on('error', reject);
  });
}

/** A raw answer to compare (express's own HTML error page, for a parameter it cannot decode, carries the stack: its head is compared). */
export const comparableAnswer = (r: string): string => (/^Content-Type: text\/html/m.test(r) ? r.replace(/^Content-Length: .*\r\n/m, '').replace(/<pre>[^]*<\/pre>/, '') : r);

/** The lean and the express answers to one request, comparable. */
export async function leanAndExpressAnswers(t: LeanAndExpress, method: string, path: string): Promise<[string, string]> {
  const [x, y] = await Promise.all([rawAnswer(t.lean.port, method, path), rawAnswer(t.express.port, method, path)]);
  return [comparableAnswer(x), comparableAnswer(y)];
}
