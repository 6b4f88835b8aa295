// handlers/images over a real socket with a fake backend: list filters, the inspect 404's wording, tag.
import { imageRoutes, ImagesBackend } from '../../../src/handlers/images';
import { notFound } from '../../../src/errors';
import type { Reference } from '../../../src/translate/reference';
import type { ResolvedImage } from '../../../src/types/image';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const img = (id: string, repoTags: string[], parent = '', labels?: Record<string, string>): ResolvedImage => ({
  id, names: repoTags, repoTags, repoDigests: [], config: { rootfs: { type: 'layers', diff_ids: [] }, config: { Labels: labels } }, chainId: id, diffIds: [], size: 10, created: '2024-01-01T00:00:00Z', manifestDigest: '', parent,
});
const A = 'sha256:' + 'a'.repeat(64);
const B = 'sha256:' + 'b'.repeat(64);
const C = 'sha256:' + 'c'.repeat(64);
const tags: [string, Reference][] = [];
const images = fake<ImagesBackend>({
  snapshotter: 'overlayfs',
  list: async () => [img(A, ['busybox:latest'], '', { v: '1' }), img(B, [], A), img(C, ['app:1'], B)],
  resolve: async (ref) => {
    if (ref === 'busybox') return img(A, ['busybox:latest']);
    throw notFound(`No such image: ${ref}:latest`);
  },
  tag: async (image, ref) => void tags.push([image.id, ref]),
  graphDriverData: async () => ({ UpperDir: '/snap/1/fs', WorkDir: '/snap/1/work' }),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(imageRoutes(images))));
afterAll(() => s.close());
const ids = async (q: string) => (JSON.parse((await s.request('GET', `/images/json${q}`)).text) as { Id: string }[]).map((i) => i.Id);

test('intermediate images only with all=1; label, reference and dangling filters', async () => {
  expect(await ids('')).toEqual([A, C]);
  expect(await ids('?all=1')).toEqual([A, B, C]);
  expect(await ids(`?filters=${encodeURIComponent('{"label":["v=1"]}')}`)).toEqual([A]);
  expect(await ids(`?filters=${encodeURIComponent('{"reference":["app"]}')}`)).toEqual([C]);
  expect(await ids(`?filters=${encodeURIComponent('{"dangling":["true"]}')}`)).toEqual([]);
  const bad = await s.request('GET', `/images/json?filters=${encodeURIComponent('{"dangling":["x"]}')}`);
  expect([bad.status, bad.text]).toEqual([400, `{"message":"Invalid filter 'dangling=[x]'"}\n`]);
});

test('inspect of a missing image wraps the lookup\'s message with the name as given', async () => {
  const r = await s.request('GET', '/images/nope/json');
  expect([r.status, r.text]).toEqual([404, '{"message":"no such image: nope: No such image: nope:latest"}\n']);
  const ok = await s.request('GET', '/images/busybox/json');
  expect(JSON.parse(ok.text)).toMatchObject({ Id: A, RepoTags: ['busybox:latest'], GraphDriver: { Data: { UpperDir: '/snap/1/fs', WorkDir: '/snap/1/work' }, Name: 'overlay2' } });
});

test('tag: 201, the reference normalised; a digest is refused', async () => {
  const r = await s.request('POST', '/images/busybox/tag?repo=me/app&tag=2');
  expect([r.status, r.text]).toEqual([201, '']);
  expect(tags).toEqual([[A, expect.objectContaining({ domain: 'docker.io', path: 'me/app', tag: '2' })]]);
  const d = await s.request('POST', `/images/busybox/tag?repo=${encodeURIComponent('me/app@sha256:' + 'd'.repeat(64))}`);
  expect([d.status, d.text]).toEqual([400, '{"message":"refusing to create a tag with a digest reference"}\n']);
});
