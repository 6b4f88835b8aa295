// handlers/system over a real socket with a fake backend.
import { systemRoutes, SystemBackend } from '../../../src/handlers/system';
import type { VersionInfo } from '../../../src/types/system';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const version: VersionInfo = {
  version: '0.1.0', gitCommit: 'abc', runtime: 'v20', os: 'linux', arch: 'amd64', kernelVersion: '6.1.0', buildTime: '2024-01-01T00:00:00Z',
  containerd: { version: '1.6.20', revision: 'r' }, runc: { version: '1.1.5', commit: 'c' },
};

let s: Served;
beforeAll(async () => (s = await serveRoutes(systemRoutes(fake<SystemBackend>({ version: async () => version, info: async () => { throw new Error('not asked'); } })))));
afterAll(() => s.close());

test('GET /_ping answers OK as text, HEAD with no body', async () => {
  const r = await s.request('GET', '/_ping');
  expect([r.status, r.headers['content-type'], r.headers['cache-control'], r.text]).toEqual([200, 'text/plain; charset=utf-8', 'no-cache, no-store, must-revalidate', 'OK']);
  const h = await s.request('HEAD', '/v1.20/_ping');
  expect([h.status, h.headers['content-length'], h.text]).toEqual([200, '0', '']);
});

test('GET /version shapes the backend\'s facts', async () => {
  const r = await s.request('GET', '/v1.22/version');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.text.endsWith('}\n')).toBe(true);
  expect(JSON.parse(r.text)).toMatchObject({ Version: '0.1.0', ApiVersion: '1.24', GitCommit: 'abc', KernelVersion: '6.1.0', Os: 'linux', Arch: 'amd64' });
});

test('a backend failure is a 500 in the version\'s error shape', async () => {
  const r = await s.request('GET', '/v1.23/info');
  expect([r.status, r.headers['content-type'], r.text]).toEqual([500, 'text/plain; charset=utf-8', 'not asked\n']);
  const j = await s.request('GET', '/info');
  expect([j.status, j.text]).toEqual([500, '{"message":"not asked"}\n']);
});
