import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import * as taskApi from '../../src/containerd/tasks';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const run = (args: string[], input?: string | Buffer) => b.docker(args, { apiVersion: '1.24', input });

interface Entry {
  name: string;
  type: string;
  linkname?: string;
  data?: string;
  mode?: number;
}

async function listTar(buf: Buffer): Promise<Entry[]> {
  const ex = tar.extract();
  const out: Entry[] = [];
  const done = (async () => {
    for await (const e of ex as unknown as AsyncIterable<AsyncIterable<Buffer> & { header: tar.Header }>) {
      const chunks: Buffer[] = [];
      for await (const c of e) chunks.push(c);
      out.push({ name: e.header.name, type: e.header.type, linkname: e.header.linkname || undefined, data: e.header.type === 'file' ? Buffer.concat(chunks).toString() : undefined, mode: e.header.mode });
    }
  })();
  ex.end(buf);
  await done;
  return out;
}

function makeTar(entries: Entry[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: unknown) => void chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
    for (const e of entries) {
      const header = { name: e.name, type: e.type as tar.Header['type'], linkname: e.linkname, mode: e.mode ?? (e.type === 'directory' ? 0o755 : 0o644), mtime: new Date('2024-01-02T03:04:05Z') };
      if (e.type === 'file') pack.entry(header, e.data ?? '');
      else pack.entry(header);
    }
    pack.finalize();
  });
}

const statOf = (h: string | string[] | undefined) => JSON.parse(Buffer.from(String(h), 'base64').toString());

describe('container filesystem against real containerd', () => {
  test('changes: added, modified, deleted relative to the image and init layer, running and stopped', async () => {
    const id = (await run(['run', '-d', '--name', 'ch', '--network', 'none', 'busybox', 'sh', '-c', 'echo hi > /newfile; mkdir -p /a/b; rm /bin/ls; echo x >> /etc/passwd; sleep 1000'])).stdout.trim();
    expect(id).toMatch(/^[a-f0-9]{64}$/);
    let r;
    for (let i = 0; i < 50; i++) {
      r = await b.request('GET', '/v1.24/containers/ch/changes');
      if (r.text.includes('/etc/passwd')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(r!.status).toBe(200);
    expect(r!.headers['content-type']).toBe('application/json');
    const expected = [
      { Path: '/a', Kind: 1 },
      { Path: '/a/b', Kind: 1 },
      { Path: '/bin', Kind: 0 },
      { Path: '/bin/ls', Kind: 2 },
      { Path: '/etc', Kind: 0 },
      { Path: '/etc/passwd', Kind: 0 },
      { Path: '/newfile', Kind: 1 },
    ];
    expect(r!.json()).toEqual(expected);
    const diff = await run(['diff', 'ch']);
    expect(diff.stdout).toBe('A /a\nA /a/b\nC /bin\nD /bin/ls\nC /etc\nC /etc/passwd\nA /newfile\n');
    await run(['rm', '-f', 'ch']);

    // A container that only ran has no changes (runc's mount points are in the init layer): null, as the engine.
    expect((await run(['run', '--name', 'clean', '--network', 'none', 'busybox', 'true'])).code).toBe(0);
    const clean = await b.request('GET', '/v1.18/containers/clean/changes');
    expect(clean.status).toBe(200);
    expect(clean.text).toBe('null\n');
    const created = await run(['create', '--name', 'fresh', 'busybox', 'true']);
    expect(created.code).toBe(0);
    expect((await b.request('GET', '/v1.24/containers/fresh/changes')).text).toBe('null\n');
    expect((await b.request('GET', '/v1.24/containers/nope/changes')).json()).toEqual({ message: 'No such container: nope' });
    // A directory deleted and made again (opaque in the overlay) is modified, with what it hid deleted.
    expect((await run(['run', '--name', 'op', '--network', 'none', 'busybox', 'sh', '-c', 'rm -rf /home; mkdir -p /home/new; chmod 700 /www'])).code).toBe(0);
    expect((await b.request('GET', '/v1.24/containers/op/changes')).json()).toEqual([
      { Path: '/home', Kind: 0 },
      { Path: '/home/new', Kind: 1 },
      { Path: '/home/app', Kind: 2 },
      { Path: '/www', Kind: 0 },
    ]);
    await run(['rm', '-f', 'clean', 'fresh', 'op']);
  });

  test('export: the whole filesystem without volumes, running and stopped, with the export event', async () => {
    await run(['run', '-d', '--name', 'ex', '--network', 'none', '-v', '/vol', 'busybox', 'sh', '-c', 'echo hi > /newfile; echo v > /vol/in-volume; sleep 1000']);
    const since = Math.floor(Date.now() / 1000) - 1;
    await new Promise((r) => setTimeout(r, 300));
    const r = await b.request('GET', '/v1.24/containers/ex/export');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/octet-stream');
    const entries = await listTar(r.body);
    const names = entries.map((e) => e.name);
    expect(names[0]).toBe('.dockerenv');
    expect(names).toEqual(expect.arrayContaining(['bin/', 'bin/busybox', 'bin/sh', 'dev/', 'dev/pts/', 'etc/', 'etc/hosts', 'etc/passwd', 'newfile', 'proc/', 'sys/', 'tmp/', 'vol/']));
    expect(names.some((n) => n.startsWith('/') || n.startsWith('./'))).toBe(false);
    expect(names).not.toContain('vol/in-volume');
    expect(entries.find((e) => e.name === 'newfile')!.data).toBe('hi\n');
    expect(entries.find((e) => e.name === 'etc/hosts')!.data).toBe(''); // the init layer's, not the bind-mounted file
    expect(entries.find((e) => e.name === 'bin/sh')).toEqual(expect.objectContaining({ type: 'symlink', linkname: 'busybox' }));
    const ev = await b.request('GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"event":["export"]}')}`);
    expect(ev.text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ status: 'export', Type: 'container', Action: 'export', Actor: { ID: expect.any(String), Attributes: { image: 'busybox', name: 'ex' } } })]);
    await run(['stop', '-t', '0', 'ex']);
    const out = path.join(b.dir, 'ex.tar');
    const cli = await run(['export', '-o', out, 'ex']);
    expect(cli.code).toBe(0);
    expect((await listTar(fs.readFileSync(out))).find((e) => e.name === 'newfile')!.data).toBe('hi\n');
    expect((await b.request('GET', '/v1.24/containers/nope/export')).status).toBe(404);
    await run(['rm', '-f', '-v', 'ex']);
  });

  test('archive: HEAD stat header, GET tar per path form, 404/400, volumes and the network files, gzip, since 1.20', async () => {
    const vol = path.join(b.dir, 'bindsrc');
    fs.mkdirSync(vol);
    fs.writeFileSync(path.join(vol, 'host-file'), 'from host\n');
    const arRun = await run(['run', '-d', '--name', 'ar', '--network', 'none', '--hostname', 'arhost', '-v', `${vol}:/bound:ro`, '-v', 'arvol:/data', 'busybox', 'sh', '-c',
      'echo hi > /newfile; echo d > /data/f; ln -s /etc /etclink; ln -s ../../../../ /home/up; mkdir -p /d/e; echo 1 > /d/e/f; sleep 1000']);
    const arId = arRun.stdout.trim();
    await new Promise((r) => setTimeout(r, 300));
    const head = await b.request('HEAD', '/v1.24/containers/ar/archive?path=/newfile');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBeUndefined();
    const st = statOf(head.headers['x-docker-container-path-stat']);
    expect(st).toEqual({ name: 'newfile', size: 3, mode: 0o644, mtime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/), linkTarget: '' });
    expect(statOf((await b.request('HEAD', '/v1.24/containers/ar/archive?path=/etclink')).headers['x-docker-container-path-stat'])).toEqual(
      expect.objectContaining({ name: 'etclink', size: 4, mode: 2 ** 27 + 0o777, linkTarget: '/etc' }));
    expect(statOf((await b.request('HEAD', '/v1.24/containers/ar/archive?path=/home/up')).headers['x-docker-container-path-stat']).linkTarget).toBe('/');
    expect(statOf((await b.request('HEAD', '/v1.24/containers/ar/archive?path=/etc/.')).headers['x-docker-container-path-stat'])).toEqual(expect.objectContaining({ name: '.', mode: 2 ** 31 + 0o755 }));
    expect(statOf((await b.request('HEAD', '/v1.24/containers/ar/archive?path=/')).headers['x-docker-container-path-stat']).name).toBe('/');

    const get = await b.request('GET', '/v1.24/containers/ar/archive?path=/etc');
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/x-tar');
    expect(statOf(get.headers['x-docker-container-path-stat']).name).toBe('etc');
    const etc = await listTar(get.body);
    // (etc/mtab: the init layer's link to /proc/mounts, as the reference's)
    expect(etc.map((e) => e.name)).toEqual(['etc/', 'etc/group', 'etc/hostname', 'etc/hosts', 'etc/mtab', 'etc/passwd', 'etc/resolv.conf']);
    expect(etc.find((e) => e.name === 'etc/hostname')!.data).toBe('arhost\n'); // the file the container sees
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/etc/.')).body)).map((e) => e.name).slice(0, 2)).toEqual(['./', './group']);
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/etclink')).body))).toEqual([expect.objectContaining({ name: 'etclink', type: 'symlink', linkname: '/etc' })]);
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/etclink/')).body)).map((e) => e.name)[1]).toBe('etclink/group');
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=d')).body)).map((e) => e.name)).toEqual(['d/', 'd/e/', 'd/e/f']);
    const root = (await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/')).body)).map((e) => e.name);
    expect(root.slice(0, 2)).toEqual(['/', '/.dockerenv']);
    expect(root).toEqual(expect.arrayContaining(['/bound/', '/bound/host-file', '/data/f', '/newfile']));
    // Volumes and binds are seen as the container sees them.
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/data/f')).body))[0].data).toBe('d\n');
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/bound/host-file')).body))[0].data).toBe('from host\n');
    // Through an escaping relative symlink: still inside the container.
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/home/up/etc/hostname')).body))[0].data).toBe('arhost\n');

    const gz = await b.request('GET', '/v1.24/containers/ar/archive?path=/newfile', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect((await listTar(require('node:zlib').gunzipSync(gz.body)))[0].data).toBe('hi\n');

    const missing = await b.request('GET', '/v1.24/containers/ar/archive?path=/nope');
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ message: 'Could not find the file /nope in container ar' });
    expect((await b.request('HEAD', '/v1.24/containers/ar/archive?path=/nope')).status).toBe(404);
    expect((await b.request('GET', '/v1.24/containers/ar/archive?path=/proc/1/status')).status).toBe(404);
    const empty = await b.request('GET', '/v1.24/containers/ar/archive?path=');
    expect(empty.status).toBe(400);
    expect(empty.json()).toEqual({ message: 'bad parameter: pathcannot be empty' });
    expect((await b.request('GET', '/v1.24/containers/nope/archive?path=/')).status).toBe(404);
    expect((await b.request('GET', '/v1.24/containers/ar/archive?path=/newfile/')).status).toBe(400);
    const old = await b.request('GET', '/v1.22/containers/ar/archive?path=/nope');
    expect(old.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(old.text).toBe('Could not find the file /nope in container ar\n');
    expect((await b.request('GET', '/v1.20/containers/ar/archive?path=/newfile')).status).toBe(200);
    const tooOld = await b.request('HEAD', '/v1.19/containers/ar/archive?path=/newfile');
    expect(tooOld.status).toBe(404);
    expect((await b.request('GET', '/v1.19/containers/ar/archive?path=/newfile')).json()).toEqual({ message: 'page not found' });

    // While an archive streams, the container is frozen (its processes cannot swap paths under berth); after, not.
    const status = async () => (await b.daemon.ctr.tasks.Get({ container_id: arId })).process?.status;
    const slow = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get({ socketPath: b.socket, path: '/v1.24/containers/ar/archive?path=/bin' }, resolve).on('error', reject));
    expect(slow.statusCode).toBe(200);
    slow.pause();
    expect(await status()).toBe('PAUSED');
    let size = 0;
    slow.on('data', (c: Buffer) => (size += c.length));
    slow.resume();
    await new Promise((r) => slow.on('end', r));
    expect(size).toBeGreaterThan(fs.statSync('/bin/busybox').size);
    expect(await status()).toBe('RUNNING'); // thawed before the response ended

    // A stopped container reads the same.
    await run(['stop', '-t', '0', 'ar']);
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/data/f')).body))[0].data).toBe('d\n');
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/newfile')).body))[0].data).toBe('hi\n');
    await run(['rm', '-f', 'ar']);
    await b.request('DELETE', '/v1.24/volumes/arvol');
  });

  test('PUT archive: running and stopped containers, noOverwriteDirNonDir, read-only rootfs and volumes, errors, event', async () => {
    await run(['run', '-d', '--name', 'pu', '--network', 'none', 'busybox', 'sleep', '1000']);
    const since = Math.floor(Date.now() / 1000) - 1;
    const body = await makeTar([{ name: 'dir/', type: 'directory' }, { name: 'dir/f', type: 'file', data: 'one\n', mode: 0o600 }, { name: 'top', type: 'file', data: 'top\n' }]);
    const put = await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp', { body, headers: { 'Content-Type': 'application/x-tar' } });
    expect(put.status).toBe(200);
    expect(put.text).toBe('');
    expect((await run(['exec', 'pu', 'cat', '/tmp/dir/f', '/tmp/top'])).stdout).toBe('one\ntop\n');
    expect((await run(['exec', 'pu', 'stat', '-c', '%a %Y', '/tmp/dir/f'])).stdout).toBe(`600 ${Date.parse('2024-01-02T03:04:05Z') / 1000}\n`);
    const ev = await b.request('GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"event":["extract-to-dir"]}')}`);
    expect(ev.text.trim().split('\n').map((l) => JSON.parse(l).Action)).toEqual(['extract-to-dir']);

    // noOverwriteDirNonDir: a file over the directory, and a directory over the file, are refused (400).
    const fileOverDir = await makeTar([{ name: 'dir', type: 'file', data: 'x' }]);
    const refused = await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp&noOverwriteDirNonDir=1', { body: fileOverDir });
    expect(refused.status).toBe(400);
    expect(refused.json().message).toBe('Error processing tar file(exit status 1): cannot overwrite directory "/tmp/dir" with non-directory "/tmp"');
    const dirOverFile = await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp&noOverwriteDirNonDir=true', { body: await makeTar([{ name: 'top', type: 'directory' }]) });
    expect(dirOverFile.status).toBe(400);
    // Without it the directory is replaced.
    expect((await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp', { body: fileOverDir })).status).toBe(200);
    expect((await run(['exec', 'pu', 'cat', '/tmp/dir'])).stdout).toBe('x');

    const notDir = await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp/top', { body });
    expect(notDir.status).toBe(400);
    expect(notDir.json()).toEqual({ message: 'extraction point is not a directory' });
    expect((await b.request('PUT', '/v1.24/containers/pu/archive?path=/nope', { body })).json()).toEqual({ message: 'Could not find the file /nope in container pu' });
    expect((await b.request('PUT', '/v1.24/containers/pu/archive', { body })).status).toBe(400);
    expect((await b.request('PUT', '/v1.24/containers/nope/archive?path=/', { body })).status).toBe(404);
    expect((await b.request('PUT', '/v1.19/containers/pu/archive?path=/tmp', { body })).status).toBe(404);
    const garbage = await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp', { body: Buffer.from('not a tar at all, just some text that is long enough '.repeat(20)) });
    expect(garbage.status).toBe(500);
    expect(garbage.json().message).toMatch(/^Error processing tar file\(exit status 1\): /);

    // A running container is frozen only while an operation runs (concurrent ones share the freeze); one its
    // user paused stays paused.
    const both = await Promise.all([b.request('GET', '/v1.24/containers/pu/archive?path=/tmp'), b.request('PUT', '/v1.24/containers/pu/archive?path=/', { body }), b.request('HEAD', '/v1.24/containers/pu/archive?path=/tmp')]);
    expect(both.map((x) => x.status)).toEqual([200, 200, 200]);
    expect((await b.request('GET', '/v1.24/containers/pu/json')).json().State).toEqual(expect.objectContaining({ Running: true, Paused: false }));
    expect((await run(['exec', 'pu', 'cat', '/dir/f'])).stdout).toBe('one\n');
    await run(['pause', 'pu']);
    expect((await b.request('PUT', '/v1.24/containers/pu/archive?path=/tmp', { body })).status).toBe(200);
    expect((await b.request('GET', '/v1.24/containers/pu/archive?path=/tmp/top')).status).toBe(200);
    expect((await b.request('GET', '/v1.24/containers/pu/json')).json().State.Paused).toBe(true);
    expect((await run(['unpause', 'pu'])).code).toBe(0);
    const pauses = await b.request('GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"event":["pause","unpause"]}')}`);
    expect(pauses.text.trim().split('\n').map((l) => JSON.parse(l).Action)).toEqual(['pause', 'unpause']); // only the user's

    // A stopped container: extracted into its snapshot, seen when it runs again.
    await run(['stop', '-t', '0', 'pu']);
    expect((await b.request('PUT', '/v1.24/containers/pu/archive?path=/', { body })).status).toBe(200);
    await run(['start', 'pu']);
    expect((await run(['exec', 'pu', 'cat', '/dir/f'])).stdout).toBe('one\n');
    await run(['rm', '-f', 'pu']);

    // Read-only root filesystem: 403, except into a writable volume; a read-only bind: 403.
    const host = path.join(b.dir, 'robind');
    fs.mkdirSync(host);
    await run(['run', '-d', '--name', 'ro', '--read-only', '--network', 'none', '-v', 'rovol:/data', '-v', `${host}:/robind:ro`, 'busybox', 'sleep', '1000']);
    const roRoot = await b.request('PUT', '/v1.24/containers/ro/archive?path=/tmp', { body });
    expect(roRoot.status).toBe(403);
    expect(roRoot.json()).toEqual({ message: 'container rootfs is marked read-only' });
    const roBind = await b.request('PUT', '/v1.24/containers/ro/archive?path=/robind', { body });
    expect(roBind.status).toBe(403);
    expect(roBind.json()).toEqual({ message: 'mounted volume is marked read-only' });
    expect(fs.readdirSync(host)).toEqual([]);
    expect((await b.request('PUT', '/v1.24/containers/ro/archive?path=/data', { body })).status).toBe(200);
    expect((await run(['exec', 'ro', 'cat', '/data/top'])).stdout).toBe('top\n');
    // An entry reaching from a writable volume into the read-only root is refused too.
    expect((await b.request('PUT', '/v1.24/containers/ro/archive?path=/data', { body: await makeTar([{ name: '../etc/x', type: 'file', data: 'x' }]) })).status).toBe(500);
    await run(['rm', '-f', '-v', 'ro']);
    await b.request('DELETE', '/v1.24/volumes/rovol');
  });

  test('SECURITY: no tar entry, symlink or path reads or writes outside the container', async () => {
    const canary = path.join(b.dir, 'canary');
    fs.mkdirSync(canary);
    // Links the container makes: absolute to /, relative climbing far above, a symlinked parent directory.
    await run(['run', '-d', '--name', 'sec', '--network', 'none', 'busybox', 'sh', '-c',
      `ln -s / /etc/x; ln -s ../../../../../../../../.. /tmp/up; ln -s ${canary} /abslink; ln -s /etc/x/tmp /tmplink; sleep 1000`]);
    await new Promise((r) => setTimeout(r, 300));
    const put = (p: string, body: Buffer) => b.request('PUT', `/v1.24/containers/sec/archive?path=${encodeURIComponent(p)}`, { body });
    const file = await makeTar([{ name: 'pwned', type: 'file', data: 'pwned\n' }]);

    // Extracting "to" an absolute symlink: into the container's root, not the host's.
    expect((await put('/etc/x', file)).status).toBe(200);
    expect(fs.existsSync('/pwned')).toBe(false);
    expect((await run(['exec', 'sec', 'cat', '/pwned'])).stdout).toBe('pwned\n');
    // A relative link climbing above the root stops at the root.
    expect((await put('/tmp/up/etc', file)).status).toBe(200);
    expect(fs.existsSync('/etc/pwned')).toBe(false);
    expect((await run(['exec', 'sec', 'cat', '/etc/pwned'])).stdout).toBe('pwned\n');
    // A link naming a host path names that path inside the container (it does not exist there: 404).
    expect((await put('/abslink', file)).status).toBe(404);
    expect(fs.readdirSync(canary)).toEqual([]);
    // A symlinked parent directory.
    expect((await put('/tmplink', file)).status).toBe(200);
    expect((await run(['exec', 'sec', 'cat', '/tmp/pwned'])).stdout).toBe('pwned\n');

    // Entries climbing out of the destination are refused (as the engine refuses them: 500).
    const dotdot = await put('/tmp', await makeTar([{ name: '../../../../escape', type: 'file', data: 'x' }]));
    expect(dotdot.status).toBe(500);
    expect(dotdot.json().message).toBe('Error processing tar file(exit status 1): "../../../../escape" is outside of "/tmp"');
    const relLink = await put('/tmp', await makeTar([{ name: 'rl', type: 'symlink', linkname: '../../etc' }]));
    expect(relLink.json().message).toBe('Error processing tar file(exit status 1): invalid symlink "/tmp/rl" -> "../../etc"');
    const hard = await put('/tmp', await makeTar([{ name: 'hl', type: 'link', linkname: '../../etc/passwd' }]));
    expect(hard.json().message).toBe('Error processing tar file(exit status 1): invalid hardlink "/etc/passwd" -> "../../etc/passwd"');
    // A symlink in the tar, then a file through it: stays in the container.
    const via = await put('/tmp', await makeTar([{ name: 'al', type: 'symlink', linkname: '/' }, { name: 'al/etc/owned', type: 'file', data: 'owned\n' }, { name: 'hostlink', type: 'symlink', linkname: canary }, { name: 'hostlink/x', type: 'file', data: 'x' }]));
    expect(via.status).toBe(200);
    expect(fs.existsSync('/etc/owned')).toBe(false);
    expect(fs.readdirSync(canary)).toEqual([]);
    expect((await run(['exec', 'sec', 'cat', '/etc/owned'])).stdout).toBe('owned\n');
    expect((await run(['exec', 'sec', 'cat', `${canary}/x`])).stdout).toBe('x');
    // An absolute entry name is below the destination.
    expect((await put('/tmp', await makeTar([{ name: '/abs/file', type: 'file', data: 'a' }]))).status).toBe(200);
    expect((await run(['exec', 'sec', 'cat', '/tmp/abs/file'])).stdout).toBe('a');
    // Nothing escaped anywhere under the test's folder either.
    const found: string[] = [];
    // (the walk covers the whole temp folder: a folder another process removes meanwhile holds nothing of ours)
    const entries = (d: string) => {
      try {
        return fs.readdirSync(d, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
    };
    const walk = (d: string) => {
      for (const e of entries(d)) {
        if (['escape', 'pwned', 'owned'].includes(e.name)) found.push(path.join(d, e.name));
        if (e.isDirectory() && !path.join(d, e.name).includes('/exec/fs/')) walk(path.join(d, e.name));
      }
    };
    walk(path.dirname(b.dir));
    // (the container's own files are in its snapshot and, while it runs, its rootfs mount)
    expect(found.filter((f) => !/\/io\.containerd\.(snapshotter\.v1\.overlayfs\/snapshots|runtime\.v2\.task)\//.test(f))).toEqual([]);
    expect(found.length).toBeGreaterThan(0);

    // Reading: a symlink to / reads the container's root, a link to a host path reads nothing of the host.
    fs.writeFileSync(path.join(canary, 'secret'), 'host secret\n');
    expect((await listTar((await b.request('GET', '/v1.24/containers/sec/archive?path=/etc/x/etc/hostname')).body))[0].data).not.toBe(fs.readFileSync('/etc/hostname', 'utf8'));
    expect((await b.request('GET', `/v1.24/containers/sec/archive?path=${encodeURIComponent('/abslink/secret')}`)).status).toBe(404);
    expect((await b.request('GET', `/v1.24/containers/sec/archive?path=${encodeURIComponent('/../../../../../../../' + canary + '/secret')}`)).status).toBe(404);
    expect((await b.request('POST', '/v1.22/containers/sec/copy', { body: { Resource: '/abslink/secret' } })).status).toBe(404);
    await run(['rm', '-f', 'sec']);
  });

  test('copy: the old endpoint until 1.23, a bare 404 from 1.24', async () => {
    await run(['run', '-d', '--name', 'cp', '--network', 'none', 'busybox', 'sh', '-c', 'ln -s /etc/passwd /pw; sleep 1000']);
    await new Promise((r) => setTimeout(r, 300));
    const r = await b.request('POST', '/v1.22/containers/cp/copy', { body: { Resource: '/etc/passwd' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/x-tar');
    const e = await listTar(r.body);
    expect(e).toEqual([expect.objectContaining({ name: 'passwd', type: 'file', data: expect.stringContaining('root:x:0:0') })]);
    // The resource is followed to its end and named after it.
    expect((await listTar((await b.request('POST', '/v1.18/containers/cp/copy', { body: { Resource: 'pw' } })).body)).map((x) => x.name)).toEqual(['passwd']);
    expect((await listTar((await b.request('POST', '/v1.23/containers/cp/copy', { body: { Resource: '/etc' } })).body))[0].name).toBe('etc/');
    const gone = await b.request('POST', '/v1.24/containers/cp/copy', { body: { Resource: '/etc/passwd' } });
    expect(gone.status).toBe(404);
    expect(gone.text).toBe('');
    const missing = await b.request('POST', '/v1.22/containers/cp/copy', { body: { Resource: '/nope' } });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('Could not find the file /nope in container cp\n');
    expect((await b.request('POST', '/v1.22/containers/cp/copy', { body: {} })).text).toBe('Path cannot be empty\n');
    expect((await b.request('POST', '/v1.22/containers/cp/copy', { headers: { 'Content-Type': 'application/json' } })).text).toBe('got EOF while reading request body\n');
    expect((await b.request('POST', '/v1.22/containers/nope/copy', { body: { Resource: '/etc' } })).text).toBe('No such container: nope\n');
    await run(['rm', '-f', 'cp']);
  });

  test('docker cp in both directions (file, directory, - tar stream), docker diff, docker export', async () => {
    await run(['run', '-d', '--name', 'cli', '--network', 'none', 'busybox', 'sleep', '1000']);
    const work = path.join(b.dir, 'cli');
    fs.mkdirSync(path.join(work, 'tree/sub'), { recursive: true });
    fs.writeFileSync(path.join(work, 'one.txt'), 'one\n');
    fs.writeFileSync(path.join(work, 'tree/sub/two.txt'), 'two\n');
    fs.symlinkSync('sub/two.txt', path.join(work, 'tree/link'));
    let r = await run(['cp', path.join(work, 'one.txt'), 'cli:/tmp/']);
    expect(r).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
    r = await run(['cp', path.join(work, 'one.txt'), 'cli:/tmp/renamed.txt']);
    expect(r.code).toBe(0);
    r = await run(['cp', path.join(work, 'tree'), 'cli:/srv']);
    expect(r.code).toBe(0);
    expect((await run(['exec', 'cli', 'sh', '-c', 'cat /tmp/one.txt /tmp/renamed.txt /srv/sub/two.txt /srv/link; readlink /srv/link'])).stdout).toBe('one\none\ntwo\ntwo\nsub/two.txt\n');
    const stdinTar = await makeTar([{ name: 'from-stdin', type: 'file', data: 'stdin\n' }]);
    r = await run(['cp', '-', 'cli:/tmp'], stdinTar);
    expect(r.code).toBe(0);
    expect((await run(['exec', 'cli', 'cat', '/tmp/from-stdin'])).stdout).toBe('stdin\n');

    // The CLI uses the archive endpoints at any version: they exist from 1.20 (the spec's since v1.20).
    expect((await b.docker(['cp', path.join(work, 'one.txt'), 'cli:/tmp/v120.txt'], { apiVersion: '1.20' })).code).toBe(0);
    expect((await run(['exec', 'cli', 'cat', '/tmp/v120.txt'])).stdout).toBe('one\n');
    expect((await b.docker(['cp', path.join(work, 'one.txt'), 'cli:/tmp/v119.txt'], { apiVersion: '1.19' })).code).not.toBe(0);

    const out = path.join(work, 'out');
    fs.mkdirSync(out);
    expect((await run(['cp', 'cli:/srv', out])).code).toBe(0);
    expect(fs.readFileSync(path.join(out, 'srv/sub/two.txt'), 'utf8')).toBe('two\n');
    expect(fs.readlinkSync(path.join(out, 'srv/link'))).toBe('sub/two.txt');
    expect((await run(['cp', 'cli:/tmp/one.txt', path.join(out, 'copy.txt')])).code).toBe(0);
    expect(fs.readFileSync(path.join(out, 'copy.txt'), 'utf8')).toBe('one\n');
    const tarOut = await b.docker(['cp', 'cli:/tmp/one.txt', '-'], { apiVersion: '1.24' });
    expect(tarOut.code).toBe(0);
    const missing = await run(['cp', 'cli:/nope', out]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Could not find the file /nope in container cli');
    const ro = await run(['cp', path.join(work, 'one.txt'), 'cli:/nope/dir/']);
    expect(ro.code).not.toBe(0);

    const diff = await run(['diff', 'cli']);
    expect(diff.stdout.split('\n')).toEqual(expect.arrayContaining(['A /srv', 'A /srv/sub/two.txt', 'C /tmp', 'A /tmp/one.txt']));
    const exp = await run(['export', '-o', path.join(work, 'cli.tar'), 'cli']);
    expect(exp.code).toBe(0);
    expect((await listTar(fs.readFileSync(path.join(work, 'cli.tar')))).map((e) => e.name)).toContain('srv/sub/two.txt');
    await run(['rm', '-f', 'cli']);
  });

  test('archive operations while a run\'s exit is recorded (task stopped, record still running): as for a stopped container', async () => {
    // The exit's recording waits for the output to end: a writer of the test's own holds the stdout FIFO open and
    // writes to it, so the window (task stopped, record running) lasts until the test closes it.
    await run(['run', '-d', '--name', 'ending', '--network', 'none', 'busybox', 'sh', '-c', 'until [ -e /tmp/go ]; do sleep 0.05; done']);
    const id = (await b.request('GET', '/v1.24/containers/ending/json')).json().Id as string;
    const fd = fs.openSync(path.join(b.config.execRoot, 'fifo', id, `${id}-stdout`), fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    const tick = setInterval(() => fs.writeSync(fd, 'held\n'), 200);
    try {
      const put = (name: string) => makeTar([{ name, type: 'file', data: `${name}\n` }]);
      expect((await b.request('PUT', '/v1.24/containers/ending/archive?path=/tmp', { body: await put('go'), headers: { 'Content-Type': 'application/x-tar' } })).status).toBe(200);
      for (let i = 0; i < 200 && (await taskApi.status(b.daemon.ctr, id)) !== 'STOPPED'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await taskApi.status(b.daemon.ctr, id)).toBe('STOPPED');
      const running = async () => (await b.request('GET', '/v1.24/containers/ending/json')).json().State.Running;
      expect(await running()).toBe(true);

      const r = await b.request('PUT', '/v1.24/containers/ending/archive?path=/tmp', { body: await put('in-window'), headers: { 'Content-Type': 'application/x-tar' } });
      expect([r.status, r.text]).toEqual([200, '']);
      expect((await b.request('HEAD', '/v1.24/containers/ending/archive?path=/tmp/in-window')).status).toBe(200);
      const got = await b.request('GET', '/v1.24/containers/ending/archive?path=/tmp/in-window');
      expect(got.status).toBe(200);
      expect((await listTar(got.body)).map((e) => [e.name, e.data])).toEqual([['in-window', 'in-window\n']]);
      const work = path.join(b.dir, 'ending');
      fs.mkdirSync(work);
      fs.writeFileSync(path.join(work, 'cp-in.txt'), 'cp\n');
      expect(await run(['cp', path.join(work, 'cp-in.txt'), 'ending:/tmp/'])).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
      expect(await run(['cp', 'ending:/tmp/in-window', work])).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
      expect(fs.readFileSync(path.join(work, 'in-window'), 'utf8')).toBe('in-window\n');
      expect((await b.request('GET', '/v1.24/containers/ending/export')).status).toBe(200);
      // (all of it inside the window)
      expect(await running()).toBe(true);
    } finally {
      clearInterval(tick);
      fs.closeSync(fd);
    }
    expect((await b.request('POST', '/v1.24/containers/ending/wait')).json().StatusCode).toBe(0);
    const after = await b.request('GET', '/v1.24/containers/ending/archive?path=/tmp');
    expect((await listTar(after.body)).map((e) => e.name)).toEqual(expect.arrayContaining(['tmp/go', 'tmp/in-window', 'tmp/cp-in.txt']));
    await run(['rm', '-f', 'ending']);
  });

  test('starts of one container at once: one runs it, the others wait and answer as it then is; archive writes work after', async () => {
    // Before, each start deleted the task another had just made, and containerd kept the shim's folder: every start
    // of the container failed from then on, and one whose record said running answered PUT archive with a 500.
    expect((await b.request('POST', '/v1.24/containers/create?name=starts', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).status).toBe(201);
    for (let round = 0; round < 3; round++) {
      const statuses = (await Promise.all([1, 2, 3].map(() => b.request('POST', '/v1.24/containers/starts/start')))).map((x) => [x.status, x.text]);
      expect(statuses.filter(([s]) => s === 204).length).toBeGreaterThanOrEqual(1);
      for (const s of statuses) expect([[204, ''], [304, '']]).toContainEqual(s);
      expect((await b.request('POST', '/v1.24/containers/starts/wait')).json().StatusCode).toBe(0);
    }
    expect((await b.request('POST', '/v1.24/containers/starts/start')).status).toBe(204);
    expect((await b.request('POST', '/v1.24/containers/starts/wait')).json().StatusCode).toBe(0);
    const tarBuf = await makeTar([{ name: 'after', type: 'file', data: 'after\n' }]);
    expect((await b.request('PUT', '/v1.24/containers/starts/archive?path=/tmp', { body: tarBuf, headers: { 'Content-Type': 'application/x-tar' } })).status).toBe(200);
    expect((await b.request('DELETE', '/v1.24/containers/starts')).status).toBe(204);
  });

  test('a forced remove asked while a start is under way waits for it: nothing of the run is left behind', async () => {
    // Before, the remove deleted the task the start had just made: the start failed with a 500 and containerd could
    // keep the shim's folder. As under the engine's container lock, the remove now waits for the start.
    for (let round = 0; round < 3; round++) {
      const created = await b.request('POST', '/v1.24/containers/create?name=startrm', { body: { Image: 'busybox', Cmd: ['sleep', '30'], HostConfig: { NetworkMode: 'none' } } });
      expect(created.status).toBe(201);
      const id = created.json().Id as string;
      const [start, rm] = await Promise.all([b.request('POST', '/v1.24/containers/startrm/start'), b.request('DELETE', '/v1.24/containers/startrm?force=1')]);
      // (the two requests race to berth: a start that comes second finds the container gone or being removed)
      if (start.status !== 204) expect([404, 409]).toContain(start.status);
      expect(rm.status).toBe(204);
      expect((await b.request('GET', '/v1.24/containers/startrm/json')).status).toBe(404);
      expect((await taskApi.list(b.daemon.ctr)).filter((t) => t.id === id)).toEqual([]);
    }
  });

  test('a start asked while a forced remove of the running container is under way never begins a run', async () => {
    // As the engine's RemovalInProgress: from the remove's kill on, a start is refused (409), or answers 304 while the
    // record still says running. Before, a start between the recorded exit and the 'removing' record began a run
    // the removal then took apart under it.
    for (let round = 0; round < 6; round++) {
      const created = await b.request('POST', '/v1.24/containers/create?name=rmstart', { body: { Image: 'busybox', Cmd: ['sleep', '30'], HostConfig: { NetworkMode: 'none' } } });
      expect(created.status).toBe(201);
      const id = created.json().Id as string;
      expect((await b.request('POST', '/v1.24/containers/rmstart/start')).status).toBe(204);
      const rmP = b.request('DELETE', '/v1.24/containers/rmstart?force=1');
      await new Promise((r) => setTimeout(r, round * 2));
      const starts = await Promise.all([0, 1, 2].map(async (k) => {
        await new Promise((r) => setTimeout(r, k * 3));
        return b.request('POST', '/v1.24/containers/rmstart/start');
      }));
      const rm = await rmP;
      expect(rm.status).toBe(204);
      for (const st of starts) expect([304, 404, 409]).toContain(st.status);
      expect((await b.request('GET', '/v1.24/containers/rmstart/json')).status).toBe(404);
      expect((await taskApi.list(b.daemon.ctr)).filter((t) => t.id === id)).toEqual([]);
    }
  });
});
