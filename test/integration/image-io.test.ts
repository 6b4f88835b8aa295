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
