// berth against the reference engine's answers to requests no HTTP client library sends as they are: an invalid
// %-escape in the path or the query, a ';' in the query (test/golden/raw/escapes.json, captured from Docker Engine 20.10 by
// scripts/capture-golden-raw.sh). The same bytes go to berth's socket; the status, Content-Type, Connection and body
// must be the reference's. test/golden/raw/forms.json: urlencoded POST bodies, part of the form where Go's ParseForm
// reads them.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

interface RawAnswer {
  name: string;
  request: { method: string; target: string; contentType?: string; body?: string; bodyRepeat?: { text: string; count: number } };
  status: number;
  contentType: string | null;
  connection: string | null;
  body: string;
}

const load = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../golden/raw', name), 'utf8')) as { answers: RawAnswer[] };
const golden = load('escapes.json');
const forms = load('forms.json');

/** One request written as it is; the answer read until the server closes, or until a whole answer came (keep-alive). */
function raw(socket: string, request: RawAnswer['request']): Promise<Omit<RawAnswer, 'name' | 'request'>> {
  const { method, target } = request;
  return new Promise((resolve, reject) => {
    const c = net.connect(socket);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      const text = Buffer.concat(chunks).toString('latin1');
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return;
      const [statusLine, ...lines] = text.slice(0, at).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = text.slice(at + 4);
      const length = headers['content-length'];
      // (a keep-alive answer is whole once its Content-Length is in)
      if (length !== undefined && body.length < Number(length)) return;
      done = true;
      c.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), contentType: headers['content-type'] ?? null, connection: headers['connection'] ?? null, body });
    };
    c.on('data', (d: Buffer) => {
      chunks.push(d);
      finish();
    });
    c.on('end', finish);
    c.on('close', () => {
      finish();
      if (!done) reject(new Error(`no whole answer to ${method} ${target}`));
    });
    c.on('error', reject);
    const body = request.bodyRepeat ? request.bodyRepeat.text.repeat(request.bodyRepeat.count) : request.body;
    if (body === undefined) c.write(`${method} ${target} HTTP/1.1\r\nHost: docker\r\n\r\n`);
    else c.write(`${method} ${target} HTTP/1.1\r\nHost: docker\r\nContent-Type: ${request.contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

/** Writes the captured request to berth and expects the reference's answer; berth keeps serving after it. */
async function replay(a: RawAnswer): Promise<void> {
  const got = await raw(b.socket, a.request);
  // (Node names keep-alive, which HTTP/1.1 means without the header; Go leaves it out)
  const connection = got.connection === 'keep-alive' ? null : got.connection;
  expect({ ...got, connection }).toEqual({ status: a.status, contentType: a.contentType, connection: a.connection, body: a.body });
  expect((await b.request('GET', '/_ping')).status).toBe(200);
}

describe('requests with invalid %-escapes answer as the reference engine does', () => {
  test.each(golden.answers.map((a) => [a.name, a] as const))('%s', (_name, a) => replay(a));
});

describe('urlencoded POST bodies are part of the form as the reference reads them', () => {
  test.each(forms.answers.map((a) => [a.name, a] as const))('%s', (_name, a) => replay(a));
});
