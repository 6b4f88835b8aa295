// handlers/registry over a real socket with a fake backend: progress streams (an early failure is an HTTP error,
// a later one arrives in the stream), import from the body, auth per version, search.
import { registryRoutes, RegistryBackend } from '../../../src/handlers/registry';
import { notFound } from '../../../src/errors';
import type { Credentials } from '../../../src/types/registry';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const seen: unknown[] = [];
const registry = fake<RegistryBackend>({
  pull: async (name, tag, creds, progress) => {
    seen.push(['pull', name, tag, creds]);
    if (name === 'missing') throw notFound('pull access denied for missing');
    progress({ status: 'Pulling from library/busybox', id: 'latest' });
    if (name === 'broken') throw new Error('unexpected EOF');
  },
  importImage: async (source, o) => {
    let body = '';
    if (typeof source !== 'string') for await (const c of source) body += String(c);
    seen.push(['import', body, o.repo, o.tag]);
    return 'sha256:' + 'f'.repeat(64);
  },
  login: async (server: string, creds: Credentials) => {
    seen.push(['login', server, creds]);
    return { identityToken: 'tok' };
  },
  search: async (term) => [{ name: term, star_count: 1 }],
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(registryRoutes(registry))));
afterAll(() => s.close());
const auth = Buffer.from(JSON.stringify({ username: 'u', password: 'p' })).toString('base64');

test('pull streams progress, with the decoded X-Registry-Auth', async () => {
  const r = await s.request('POST', '/images/create?fromImage=busybox&tag=latest', undefined, { 'X-Registry-Auth': auth });
  expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'application/json', '{"status":"Pulling from library/busybox","id":"latest"}\n']);
  expect(seen.pop()).toEqual(['pull', 'busybox', 'latest', { username: 'u', password: 'p', identitytoken: undefined, registrytoken: undefined }]);
});

test('a failure before any progress is an HTTP error; after, it is a line of the stream', async () => {
  expect(await s.request('POST', '/images/create?fromImage=missing')).toMatchObject({ status: 404, text: '{"message":"pull access denied for missing"}\n' });
  const r = await s.request('POST', '/images/create?fromImage=broken');
  expect([r.status, r.text]).toEqual([200, '{"status":"Pulling from library/busybox","id":"latest"}\n{"errorDetail":{"message":"unexpected EOF"},"error":"unexpected EOF"}\n']);
  expect(await s.request('POST', '/images/create?fromImage=UPPER')).toMatchObject({ status: 400 });
  expect(await s.request('POST', '/images/create')).toMatchObject({ status: 400, text: '{"message":"either fromImage or fromSrc is required"}\n' });
});

test('import reads the request body and answers the id as a status line', async () => {
  const r = await s.request('POST', '/images/create?fromSrc=-&repo=me/imp&tag=1', 'TARBALL');
  expect([r.status, r.text]).toEqual([200, `{"status":"sha256:${'f'.repeat(64)}"}\n`]);
  expect(seen.pop()).toEqual(['import', 'TARBALL', 'me/imp', '1']);
});

test('auth: IdentityToken from 1.23; search lists the registry\'s results', async () => {
  const body = JSON.stringify({ username: 'u', password: 'p', serveraddress: 'localhost:5000' });
  expect((await s.request('POST', '/auth', body, { 'Content-Type': 'application/json' })).text).toBe('{"IdentityToken":"tok","Status":"Login Succeeded"}\n');
  expect((await s.request('POST', '/v1.22/auth', body, { 'Content-Type': 'application/json' })).text).toBe('{"Status":"Login Succeeded"}\n');
  expect((await s.request('GET', '/images/search?term=busybox')).text).toBe('[{"name":"busybox","star_count":1}]\n');
});
