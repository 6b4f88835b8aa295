// save (docker-save archives) and commit, with the docker CLI and the API.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});
const run = (args: string[], input?: Buffer) => b.docker(args, { apiVersion: '1.24', input });

test('commit -c: the container’s own changes (not its init layer) become a layer; config, history, author, comment; events', async () => {
  const since = Math.floor(Date.now() / 1000) - 1;
  expect((await run(['run', '--name', 'src', '-e', 'KEEP=1', 'busybox', 'sh', '-c', 'echo committed > /hello; rm /bin/ls; mkdir /newdir'])).code).toBe(0);
  const c = await run(['commit', '-c', 'CMD ["cat", "/hello"]', '-c', 'EXPOSE 8080', '-m', 'a message', '-a', 'me <me@example.org>', 'src', 'committed:1']);
  expect(c.code).toBe(0);
  const id = c.stdout.trim();
  expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
  const img = (await b.request('GET', '/v1.24/images/committed:1/json')).json();
  expect(img.Id).toBe(id);
  expect([img.Comment, img.Author]).toEqual(['a message', 'me <me@example.org>']);
  expect(img.Config.Cmd).toEqual(['cat', '/hello']);
  expect(img.Config.Env).toContain('KEEP=1');
  expect(img.Config.ExposedPorts).toEqual({ '8080/tcp': {} });
  expect(img.RootFS.Layers).toHaveLength(2);
  const hist = (await b.request('GET', '/v1.24/images/committed:1/history')).json();
  expect(hist[0]).toMatchObject({ Id: id, Comment: 'a message' });
  expect((await run(['run', '--rm', 'committed:1'])).stdout).toBe('committed\n');
  const listing = await run(['run', '--rm', 'committed:1', 'sh', '-c', 'test -d /newdir && echo dir; test -e /bin/ls || echo no-ls; cat /etc/hosts | grep -c localhost']);
  // (the fresh container's own /etc/hosts: 127.0.0.1 and ::1 lines)
  expect(listing.stdout).toBe('dir\nno-ls\n2\n');
  // the layer holds only the container's changes: no /etc/hosts, no mountpoint dirs
  const save = await b.request('GET', '/v1.24/images/committed:1/get');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-commit-'));
  fs.writeFileSync(path.join(dir, 'a.tar'), save.body);
  execFileSync('tar', ['-C', dir, '-xf', path.join(dir, 'a.tar')]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const top = execFileSync('tar', ['-tf', path.join(dir, manifest[0].Layers[1])]).toString().split('\n').filter(Boolean).sort();
  expect(top).toEqual(['bin/', 'bin/.wh.ls', 'hello', 'newdir/']);
  fs.rmSync(dir, { recursive: true, force: true });
  const missing = await b.request('POST', '/v1.24/commit?container=nope');
  expect(missing.status).toBe(404);
  const ev = await b.request('GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"event":["commit"]}')}`);
  expect(JSON.parse(ev.body.toString().trim().split('\n')[0]).Actor.Attributes).toMatchObject({ comment: 'a message', imageID: id });
  await run(['rm', 'src']);
});

test('commit parent chain: Parent/ParentId, an untagged parent stays as an intermediate image, 409 by id, pruned with its last child', async () => {
  const base = (await b.request('GET', '/v1.24/images/busybox/json')).json().Id;
  expect((await run(['run', '--name', 'p1', 'busybox', 'sh', '-c', 'echo 1 > /one'])).code).toBe(0);
  const mid = (await run(['commit', 'p1', 'mid:1'])).stdout.trim();
  expect((await run(['run', '--name', 'p2', 'mid:1', 'sh', '-c', 'echo 2 > /two'])).code).toBe(0);
  const top = (await run(['commit', 'p2', 'top:1'])).stdout.trim();
  await run(['rm', 'p1', 'p2']);
  expect((await b.request('GET', '/v1.24/images/mid:1/json')).json().Parent).toBe(base);
  expect((await b.request('GET', '/v1.24/images/top:1/json')).json().Parent).toBe(mid);
  const list = (await b.request('GET', '/v1.24/images/json')).json();
  expect(list.find((i: { Id: string }) => i.Id === top).ParentId).toBe(mid);
  // untagging the parent keeps it: hidden from the list but with all=1, and not dangling
  expect((await b.request('DELETE', '/v1.24/images/mid:1')).json()).toEqual([{ Untagged: 'mid:1' }]);
  const ids = async (q: string) => (await b.request('GET', `/v1.24/images/json${q}`)).json().map((i: { Id: string }) => i.Id);
  expect(await ids('')).not.toContain(mid);
  expect(await ids('?all=1')).toContain(mid);
  expect(await ids(`?filters=${encodeURIComponent('{"dangling":["true"]}')}`)).not.toContain(mid);
  const byId = await b.request('DELETE', `/v1.24/images/${mid.slice(7, 19)}?force=1`);
  expect(byId.status).toBe(409);
  expect(byId.json().message).toBe(`conflict: unable to delete ${mid.slice(7, 19)} (cannot be forced) - image has dependent child images`);
  // removing the child removes the untagged parent too (its layers stay with busybox)
  const gone = (await b.request('DELETE', '/v1.24/images/top:1')).json();
  expect(gone.filter((d: { Deleted?: string }) => d.Deleted === top || d.Deleted === mid)).toHaveLength(2);
  expect(gone[0]).toEqual({ Untagged: 'top:1' });
  expect((await b.request('GET', `/v1.24/images/${mid}/json`)).status).toBe(404);
  expect((await b.request('GET', '/v1.24/images/busybox/json')).status).toBe(200);
});

test('save | load round trip with the CLI: several images, tags and ids, the repositories file', async () => {
  expect((await run(['tag', 'busybox', 'other/bb:2'])).code).toBe(0);
  const saved = await b.request('GET', '/v1.24/images/get?names=busybox&names=other/bb:2');
  expect(saved.status).toBe(200);
  expect(saved.headers['content-type']).toBe('application/x-tar');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-save-'));
  fs.writeFileSync(path.join(dir, 's.tar'), saved.body);
  execFileSync('tar', ['-C', dir, '-xf', path.join(dir, 's.tar')]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  expect(manifest).toHaveLength(1);
  expect(manifest[0].RepoTags.sort()).toEqual(['busybox:latest', 'other/bb:2']);
  const repos = JSON.parse(fs.readFileSync(path.join(dir, 'repositories'), 'utf8'));
  expect(Object.keys(repos).sort()).toEqual(['busybox', 'other/bb']);
  fs.rmSync(dir, { recursive: true, force: true });

  const before = (await b.request('GET', '/v1.24/images/busybox/json')).json().Id;
  const rmi = await run(['rmi', 'busybox', 'other/bb:2']);
  expect([rmi.code, rmi.stderr]).toEqual([0, '']);
  const load = await run(['load'], saved.body);
  expect(load.stdout).toContain('Loaded image: busybox:latest');
  expect((await b.request('GET', '/v1.24/images/other/bb:2/json')).json().Id).toBe(before);
  // by id: no repositories file, no tags
  const byId = await b.request('GET', `/v1.24/images/${before.slice(7, 19)}/get`);
  const d2 = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-save-'));
  fs.writeFileSync(path.join(d2, 's.tar'), byId.body);
  const names = execFileSync('tar', ['-tf', path.join(d2, 's.tar')]).toString();
  expect(names).not.toContain('repositories');
  fs.rmSync(d2, { recursive: true, force: true });
  expect((await b.request('GET', '/v1.24/images/nope/get')).status).toBe(404);
});
