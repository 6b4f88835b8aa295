// handlers/filesystem over a real socket with a fake backend: changes, the archive routes per version and their
// path-stat header, copy's checks.
import { Readable } from 'node:stream';
import { filesystemRoutes, FilesystemBackend } from '../../../src/handlers/filesystem';
import type { ContainerPathStat } from '../../../src/translate/response/archive';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const stat: ContainerPathStat = { name: 'etc', size: 4096, mode: 0x80000000 | 0o755, mtime: '2024-01-01T00:00:00Z', linkTarget: '' };
const fsvc = fake<FilesystemBackend>({
  containerChanges: async (ref) => (ref === 'clean' ? [] : [{ Path: '/tmp', Kind: 0 }, { Path: '/tmp/x', Kind: 1 }]),
  containerStatPath: async () => stat,
  containerArchivePath: async () => ({ stat, stream: Readable.from([Buffer.from('TAR')]) }),
  containerCopy: async (_ref, resource) => Readable.from([Buffer.from(`copy of ${resource}`)]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(filesystemRoutes(fsvc))));
afterAll(() => s.close());

test('changes: the list, or null when nothing changed', async () => {
  expect((await s.request('GET', '/containers/web/changes')).text).toBe('[{"Path":"/tmp","Kind":0},{"Path":"/tmp/x","Kind":1}]\n');
  expect((await s.request('GET', '/containers/clean/changes')).text).toBe('null\n');
});

test('archive: the path-stat header from 1.20, page not found before, a path required', async () => {
  const h = await s.request('HEAD', '/containers/web/archive?path=/etc');
  expect(h.status).toBe(200);
  expect(JSON.parse(Buffer.from(String(h.headers['x-docker-container-path-stat']), 'base64').toString())).toEqual(stat);
  const g = await s.request('GET', '/containers/web/archive?path=/etc');
  expect([g.status, g.headers['content-type'], g.text]).toEqual([200, 'application/x-tar', 'TAR']);
  expect((await s.request('GET', '/v1.19/containers/web/archive?path=/etc')).status).toBe(404);
  expect(await s.request('GET', '/containers/web/archive')).toMatchObject({ status: 400, text: '{"message":"bad parameter: pathcannot be empty"}\n' });
});

test('copy: up to 1.23 with a Resource; a bare 404 from 1.24', async () => {
  const r = await s.request('POST', '/v1.23/containers/web/copy', JSON.stringify({ Resource: '/etc/hostname' }), { 'Content-Type': 'application/json' });
  expect([r.status, r.text]).toEqual([200, 'copy of /etc/hostname']);
  expect(await s.request('POST', '/v1.23/containers/web/copy', JSON.stringify({}), { 'Content-Type': 'application/json' })).toMatchObject({ status: 400, text: 'Path cannot be empty\n' });
  expect(await s.request('POST', '/containers/web/copy', JSON.stringify({ Resource: '/x' }), { 'Content-Type': 'application/json' })).toMatchObject({ status: 404, text: '' });
});
