// The HTTP plumbing over a real socket with fake routes: status, headers and exact body bytes.
import type { Route } from '../../src/http/app';
import { readJSON, queryBool, queryFilters, queryInt } from '../../src/http/query';
import { writeJSON } from '../../src/http/respond';
import { conflict, notModified } from '../../src/errors';
import { hijack } from '../../src/http/hijack';
import { serveRoutes, Served } from '../helpers/serve-routes';

let s: Served;

const routes: Route[] = [
  { method: 'get', path: '/echo/:id', handler: (req, res) => writeJSON(res, 200, { id: req.params.id, v: req.apiVersion, all: queryBool(req, 'all'), n: queryInt(req, 'n', 7) }) },
  { method: 'get', path: '/filters', handler: (req, res) => writeJSON(res, 200, Object.fromEntries(queryFilters(req))) },
  { method: 'post', path: '/body', handler: async (req, res) => writeJSON(res, 201, { got: (await readJSON(req)) ?? null }) },
  { method: 'get', path: '/conflict', handler: () => { throw conflict('name is taken'); } },
  { method: 'get', path: '/same', handler: () => { throw notModified(); } },
  { method: 'get', path: '/crash', handler: () => { throw new Error('kaboom'); } },
  { method: 'post', path: '/hijack', handler: (req, res) => { const h = hijack(req, res); h.stream.write('hello'); h.stream.end(); } },
  { method: 'post', path: '/hijack-common', handler: (req, res) => { const h = hijack(req, res, undefined, { commonHeaders: true }); h.stream.write('hello'); h.stream.end(); } },
];

beforeAll(async () => (s = await serveRoutes(routes, { serverVersion: '9.9.9' })));
afterAll(() => s.close());

const req = (method: string, path: string, body?: string, headers: Record<string, string> = {}) => s.request(method, path, body, headers);

describe('versioned HTTP plumbing', () => {
  test('the prefix sets the version; no prefix is 1.24', async () => {
    expect(JSON.parse((await req('GET', '/v1.20/echo/abc?all=1&n=3')).text)).toEqual({ id: 'abc', v: '1.20', all: true, n: 3 });
    expect(JSON.parse((await req('GET', '/echo/x?all=false')).text)).toEqual({ id: 'x', v: '1.24', all: false, n: 7 });
  });

  test('JSON is written like the reference: no charset, trailing newline, common headers, no express headers', async () => {
    const r = await req('GET', '/v1.24/echo/a');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.text.endsWith('\n')).toBe(true);
    expect(r.headers['api-version']).toBe('1.24');
    expect(r.headers['server']).toBe('berth/9.9.9 (linux)');
    expect(r.headers['x-powered-by']).toBeUndefined();
    expect(r.headers['etag']).toBeUndefined();
  });

  test('errors: JSON from 1.24, plain text before; 304 has no body', async () => {
    const j = await req('GET', '/v1.24/conflict');
    expect(j.status).toBe(409);
    expect(j.text).toBe('{"message":"name is taken"}\n');
    const t = await req('GET', '/v1.23/conflict');
    expect(t.status).toBe(409);
    expect(t.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(t.text).toBe('name is taken\n');
    const nm = await req('GET', '/v1.24/same');
    expect(nm.status).toBe(304);
    expect(nm.text).toBe('');
  });

  test('a crashing handler is a 500 and the server keeps serving', async () => {
    const r = await req('GET', '/v1.24/crash');
    expect(r.status).toBe(500);
    expect(JSON.parse(r.text)).toEqual({ message: 'kaboom' });
    expect((await req('GET', '/v1.24/echo/ok')).status).toBe(200);
  });

  test('a path with an invalid %-escape is a plain 400 Bad Request, as Go answers it before the engine sees it', async () => {
    for (const path of ['/v1.24/echo/%ZZ', '/v1.24/echo/a%2', '/echo/%zz?all=1', '/v1.24/containers/%ZZ/stats?stream=0', '/v1.24/nowhere%G0']) {
      const r = await req('GET', path);
      expect([path, r.status, r.headers['content-type'], r.headers['connection'], r.text]).toEqual([path, 400, 'text/plain; charset=utf-8', 'close', '400 Bad Request']);
    }
    // a bad escape in the query is the handler's business: a route whose engine handler does not parse its form
    // first never sees the pair (Go's ParseQuery drops it; golden-raw.test has the routes that answer 400)
    expect(JSON.parse((await req('GET', '/v1.24/echo/x%41?all=%ZZ')).text)).toEqual({ id: 'xA', v: '1.24', all: false, n: 7 });
    expect((await req('GET', '/v1.24/echo/ok')).status).toBe(200);
  });

  test('JSON bodies: malformed → 400, wrong content type → 400, empty → undefined', async () => {
    const bad = await req('POST', '/v1.24/body', '{bad', { 'Content-Type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).message).toMatch(/invalid character/);
    const ct = await req('POST', '/v1.24/body', '{}', { 'Content-Type': 'text/plain' });
    expect(ct.status).toBe(400);
    expect(JSON.parse(ct.text).message).toBe("Content-Type specified (text/plain) must be 'application/json'");
    expect(JSON.parse((await req('POST', '/v1.24/body')).text)).toEqual({ got: null });
    expect(JSON.parse((await req('POST', '/v1.24/body', '{"a":1}', { 'Content-Type': 'application/json' })).text)).toEqual({ got: { a: 1 } });
  });

  test('filters: both the list and the old map form; malformed → 400', async () => {
    const f = encodeURIComponent(JSON.stringify({ status: ['running'], label: { 'a=b': true } }));
    expect(JSON.parse((await req('GET', `/v1.24/filters?filters=${f}`)).text)).toEqual({ status: ['running'], label: ['a=b'] });
    expect((await req('GET', '/v1.24/filters?filters=%7Bx')).status).toBe(400);
  });

  test('version bounds and unknown routes', async () => {
    expect((await req('GET', '/v1.25/echo/a')).status).toBe(400);
    expect((await req('GET', '/v1.17/echo/a')).text).toMatch(/too old/);
    expect((await req('GET', '/v1.x/echo/a')).status).toBe(404);
    const nf = await req('DELETE', '/v1.24/echo/a');
    expect(nf.status).toBe(404);
    expect(nf.text).toBe('{"message":"page not found"}\n');
  });

  /** Everything the server writes on one connection for a raw request, until it closes the connection. */
  const raw = async (request: string): Promise<string> => {
    const net = await import('node:net');
    return new Promise<string>((resolve) => {
      const c = net.connect(s.port, '127.0.0.1', () => c.write(request));
      let buf = '';
      c.on('data', (d) => (buf += d));
      c.on('end', () => resolve(buf));
    });
  };
  const UPGRADE = 'Connection: Upgrade\r\nUpgrade: tcp\r\n';

  // Byte for byte as the reference (Docker Engine 20.10) answers attach: a bare status line and the content type,
  // no Date, no length, no chunked encoding, none of the common headers; the end of the stream closes the connection.
  test('hijack: Upgrade: tcp gets a 101 and raw bytes, as the reference answers attach', async () => {
    expect(await raw(`POST /v1.24/hijack HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\n`)).toBe(
      'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nhello',
    );
  });

  test('hijack without Upgrade: a bare 200 and raw bytes until the connection closes, as the reference answers attach', async () => {
    expect(await raw('POST /v1.18/hijack HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\nhello');
  });

  // exec start: the reference's hijacked answers carry its common headers, still with no Date, length or chunks.
  test('hijack with the common headers, as the reference answers exec start (101 and 200)', async () => {
    const common = 'Api-Version: 1.24\r\nDocker-Experimental: false\r\nOstype: linux\r\nServer: berth/9.9.9 (linux)\r\n';
    expect(await raw(`POST /v1.24/hijack-common HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\n`)).toBe(
      `HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n${common}\r\nhello`,
    );
    expect(await raw('POST /v1.24/hijack-common HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(`HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n${common}\r\nhello`);
  });
});
