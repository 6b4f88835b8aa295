// handlers/image-io over a real socket with a fake backend: save archives and commit.
import { Writable } from 'node:stream';
import { imageIoRoutes, ImageArchiveBackend } from '../../../src/handlers/image-io';
import { notFound } from '../../../src/errors';
import type { CommitOptions } from '../../../src/types/image';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const commits: CommitOptions[] = [];
const archives = fake<ImageArchiveBackend>({
  save: async (names: string[], start: () => Writable) => {
    if (names.includes('nope')) throw notFound('No such image: nope:latest');
    const out = start();
    // the service writes the whole archive and ends the response
    await new Promise<void>((r) => out.end(`tar of ${names.join('+')}`, () => r()));
  },
  commit: async (o) => {
    commits.push(o);
    return 'sha256:' + 'e'.repeat(64);
  },
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(imageIoRoutes(archives))));
afterAll(() => s.close());

test('GET /images/get streams the archive of every name given', async () => {
  const r = await s.request('GET', '/images/get?names=a,b&names=c');
  expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'application/x-tar', 'tar of a+b+c']);
  const one = await s.request('GET', '/images/docker.io/library/busybox:latest/get');
  expect(one.text).toBe('tar of docker.io/library/busybox:latest');
});

test('a missing image is an error before anything is written; no names is a 400', async () => {
  expect(await s.request('GET', '/images/get?names=nope')).toMatchObject({ status: 404, text: '{"message":"No such image: nope:latest"}\n' });
  expect(await s.request('GET', '/v1.22/images/get')).toMatchObject({ status: 400, text: 'no images were requested\n' });
});

test('POST /commit passes the query and body on and answers 201 with the id', async () => {
  const r = await s.request('POST', '/commit?container=web&repo=me/app&tag=1&pause=0&changes=ENV%20A%3D1', JSON.stringify({ Cmd: ['sh'] }), { 'Content-Type': 'application/json' });
  expect([r.status, r.text]).toEqual([201, `{"Id":"sha256:${'e'.repeat(64)}"}\n`]);
  expect(commits).toEqual([{ container: 'web', repo: 'me/app', tag: '1', comment: undefined, author: undefined, pause: false, changes: ['ENV A=1'], config: { Cmd: ['sh'] } }]);
});
