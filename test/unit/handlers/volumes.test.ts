// handlers/volumes over a real socket with a fake backend: filters per version, create's body, remove.
import { volumeRoutes, VolumesBackend } from '../../../src/handlers/volumes';
import type { Volume } from '../../../src/types/volume';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const vol = (Name: string, Labels: Record<string, string> | null = null): Volume => ({ Name, Driver: 'local', Mountpoint: `/v/${Name}/_data`, Labels, Options: null, CreatedAt: '2024-01-01T00:00:00Z' });
const calls: unknown[][] = [];
const backend = fake<VolumesBackend>({
  listAll: async () => ({ volumes: [vol('data', { keep: 'yes' }), vol('cache'), vol('logs', { keep: 'no' })], warnings: [] }),
  usersOf: (name) => (name === 'data' ? ['c1'] : []),
  create: async (name, driver, opts, labels) => {
    calls.push(['create', name, driver, opts, labels]);
    return vol(name ?? 'anon', labels);
  },
  remove: async (name, opts) => void calls.push(['remove', name, opts]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(volumeRoutes(backend))));
afterAll(() => s.close());
const names = (text: string) => (JSON.parse(text) as { Volumes: Volume[] }).Volumes.map((v) => v.Name);

test('label and dangling filters select volumes', async () => {
  expect(names((await s.request('GET', `/volumes?filters=${encodeURIComponent('{"label":["keep"]}')}`)).text)).toEqual(['data', 'logs']);
  expect(names((await s.request('GET', `/volumes?filters=${encodeURIComponent('{"label":["keep=no"]}')}`)).text)).toEqual(['logs']);
  expect(names((await s.request('GET', `/volumes?filters=${encodeURIComponent('{"dangling":["true"]}')}`)).text)).toEqual(['cache', 'logs']);
});

test('filters a version does not know answer 400 with the engine\'s message', async () => {
  const r = await s.request('GET', `/v1.20/volumes?filters=${encodeURIComponent('{"name":["d"]}')}`);
  expect([r.status, r.text]).toEqual([400, "Invalid filter 'name'\n"]);
  const d = await s.request('GET', `/volumes?filters=${encodeURIComponent('{"dangling":["maybe"]}')}`);
  expect([d.status, d.text]).toEqual([400, '{"message":"Invalid filter \'dangling=[maybe]\'"}\n']);
});

test('create passes the body on, remove answers 204', async () => {
  const c = await s.request('POST', '/volumes/create', JSON.stringify({ Name: 'x', Labels: { a: 'b' } }), { 'Content-Type': 'application/json' });
  expect(c.status).toBe(201);
  expect(JSON.parse(c.text)).toMatchObject({ Name: 'x', Driver: 'local', Labels: { a: 'b' } });
  const r = await s.request('DELETE', '/volumes/x');
  expect([r.status, r.text]).toEqual([204, '']);
  expect(calls.map((c) => c[0])).toEqual(['create', 'remove']);
});
