// Authorization plugins (docs/authz.md): the pure protocol parts (header names, the body rule, the wire JSON) and
// the http step with a fake authorizer over a real socket: held answers replaced by a refusal, streams passed.
import { forbidden, notFound, systemError } from '../../src/errors';
import { readJSON } from '../../src/http/query';
import { writeJSON } from '../../src/http/respond';
import { canonicalHeaderKey, firstHeaderValues, sendsRequestBody, toAuthzWire } from '../../src/translate/request/authz';
import type { Authorizer, AuthzRequest } from '../../src/types/authz';
import { serveRoutes, Served } from '../helpers/serve-routes';

describe('protocol shapes', () => {
  test("Go's canonical header names; first values; no Host or Transfer-Encoding", () => {
    expect(canonicalHeaderKey('content-type')).toBe('Content-Type');
    expect(canonicalHeaderKey('x-REGISTRY-auth')).toBe('X-Registry-Auth');
    expect(canonicalHeaderKey('bad key')).toBe('bad key');
    expect(firstHeaderValues(['host', 'x', 'user-agent', 'a', 'User-Agent', 'b', 'transfer-encoding', 'chunked', 'accept', '*/*'])).toEqual({ 'User-Agent': 'a', Accept: '*/*' });
  });
  test('a body is sent for JSON with a length over 0 and under 1 MiB, never for /auth', () => {
    expect(sendsRequestBody('/v1.24/containers/create', 'application/json', '2')).toBe(true);
    expect(sendsRequestBody('/v1.24/containers/create', 'application/json; charset=utf-8', '2')).toBe(true);
    expect(sendsRequestBody('/v1.24/containers/create', 'application/json', undefined)).toBe(false);
    expect(sendsRequestBody('/v1.24/containers/create', 'application/json', '0')).toBe(false);
    expect(sendsRequestBody('/v1.24/containers/create', 'application/json', String(1 << 20))).toBe(false);
    expect(sendsRequestBody('/v1.24/images/load', 'application/x-tar', '2')).toBe(false);
    expect(sendsRequestBody('/v1.24/auth', 'application/json', '2')).toBe(false);
  });
  test('the wire JSON: Go field names and order, base64 bytes, empties left out', () => {
    const w = toAuthzWire({ RequestMethod: 'POST', RequestUri: '/v1.24/x', RequestBody: Buffer.from('{}'), RequestHeaders: { A: 'b' }, ResponseHeaders: {}, ResponseStatusCode: 0, ResponseBody: Buffer.alloc(0) });
    expect(JSON.stringify(w)).toBe('{"RequestMethod":"POST","RequestUri":"/v1.24/x","RequestBody":"e30=","RequestHeaders":{"A":"b"}}');
    const der = Buffer.from('0123456789'.repeat(10));
    const t = toAuthzWire({ User: 'alice', UserAuthNMethod: 'TLS', RequestMethod: 'GET', RequestUri: '/', RequestHeaders: {}, RequestPeerCertificates: [der], ResponseStatusCode: 200 });
    expect(Object.keys(t)).toEqual(['User', 'UserAuthNMethod', 'RequestMethod', 'RequestUri', 'RequestPeerCertificates', 'ResponseStatusCode']);
    const pem = Buffer.from((t.RequestPeerCertificates as string[])[0], 'base64').toString();
    expect(pem.split('\n')[0]).toBe('-----BEGIN CERTIFICATE-----');
    expect(Buffer.from(pem.split('\n').slice(1, -2).join(''), 'base64')).toEqual(der);
  });
});

describe('the http step with a fake authorizer', () => {
  let s: Served;
  const seen: { phase: string; r: AuthzRequest }[] = [];
  let verdict: (phase: string, r: AuthzRequest) => void = () => undefined;
  let ran = 0;
  const authz: Authorizer = {
    enabled: () => true,
    authorizeRequest: async (r) => {
      seen.push({ phase: 'req', r });
      verdict('req', r);
    },
    authorizeResponse: async (r) => {
      seen.push({ phase: 'res', r });
      verdict('res', r);
    },
  };
  beforeAll(async () => {
    s = await serveRoutes(
      [
        {
          method: 'post',
          path: '/echo',
          handler: async (req, res) => {
            ran++;
            writeJSON(res, 201, { got: await readJSON(req) });
          },
        },
        { method: 'get', path: '/missing', handler: () => Promise.reject(notFound('No such thing: x')) },
        {
          method: 'get',
          path: '/stream',
          handler: (_req, res) => {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.write('{"a":1}\n');
            setTimeout(() => res.end('{"b":2}\n'), 50);
          },
        },
        {
          method: 'post',
          path: '/empty',
          handler: (_req, res) => {
            res.writeHead(204);
            res.end();
          },
        },
      ],
      { authorizer: authz },
    );
  });
  afterAll(() => s.close());
  beforeEach(() => {
    seen.length = 0;
    ran = 0;
    verdict = () => undefined;
  });

  test('allowed: the body reaches both the plugin and the handler; the answer is held then sent', async () => {
    const a = await s.request('POST', '/v1.24/echo?x=1', '{"k":"v"}', { 'Content-Type': 'application/json', 'Content-Length': '9' });
    expect(a.status).toBe(201);
    expect(a.text).toBe('{"got":{"k":"v"}}\n');
    expect(a.headers['api-version']).toBe('1.24');
    expect(seen.map((x) => x.phase)).toEqual(['req', 'res']);
    expect(seen[0].r).toMatchObject({ RequestMethod: 'POST', RequestUri: '/v1.24/echo?x=1', RequestBody: Buffer.from('{"k":"v"}') });
    expect(seen[1].r).toMatchObject({ ResponseStatusCode: 201, ResponseBody: Buffer.from('{"got":{"k":"v"}}\n'), ResponseHeaders: { 'Content-Type': 'application/json', 'Api-Version': '1.24' } });
  });
  test('refused before: the handler never runs; refused after: the answer is replaced; no common headers', async () => {
    verdict = (phase) => {
      if (phase === 'req') throw forbidden('authorization denied by plugin p: no');
    };
    const a = await s.request('POST', '/v1.23/echo', '{}', { 'Content-Type': 'application/json' });
    expect(a).toMatchObject({ status: 403, text: 'authorization denied by plugin p: no\n' });
    expect(a.headers['api-version']).toBeUndefined();
    expect(ran).toBe(0);
    verdict = (phase) => {
      if (phase === 'res') throw systemError('plugin p failed with error: AuthZPlugin.AuthZRes: x');
    };
    const b = await s.request('POST', '/v1.24/empty');
    expect(b).toMatchObject({ status: 500, text: '{"message":"plugin p failed with error: AuthZPlugin.AuthZRes: x"}\n' });
    expect(b.headers.server).toBeUndefined();
  });
  test("a handler's error is the answer; the plugin was asked with no status", async () => {
    verdict = (phase) => {
      if (phase === 'res') throw forbidden('ignored');
    };
    const a = await s.request('GET', '/v1.24/missing');
    expect(a).toMatchObject({ status: 404, text: '{"message":"No such thing: x"}\n' });
    expect(seen[1].r.ResponseStatusCode).toBeUndefined();
  });
  test('a stream passes at once and is reported at its end', async () => {
    verdict = (phase) => {
      if (phase === 'res') throw forbidden('too late');
    };
    const a = await s.request('GET', '/v1.24/stream');
    expect(a).toMatchObject({ status: 200, text: '{"a":1}\n{"b":2}\n' });
    for (let i = 0; i < 50 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen[1].phase).toBe('res');
    expect(seen[1].r.ResponseStatusCode).toBeUndefined();
  });
  test('unknown paths are not asked', async () => {
    expect((await s.request('GET', '/v1.24/nothing')).status).toBe(404);
    expect(seen).toEqual([]);
  });
});
