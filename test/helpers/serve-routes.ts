// Handler unit tests: a handler file's routes served by the real app on a real socket (127.0.0.1, a free port),
// with a fake backend; requests answer status, headers and the exact body.
import * as http from 'node:http';
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
