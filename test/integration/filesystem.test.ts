import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar-stream';
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
    pack.on('data', (c: Buffer) => chunks.push(c));
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
    await run(['run', '-d', '--name', 'ar', '--network', 'none', '--hostname', 'arhost', '-v', `${vol}:/bound:ro`, '-v', 'arvol:/data', 'busybox', 'sh', '-c',
      'echo hi > /newfile; echo d > /data/f; ln -s /etc /etclink; ln -s ../../../../ /home/up; mkdir -p /d/e; echo 1 > /d/e/f; sleep 1000']);
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
    expect(etc.map((e) => e.name)).toEqual(['etc/', 'etc/group', 'etc/hostname', 'etc/hosts', 'etc/passwd', 'etc/resolv.conf']);
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

    // A stopped container reads the same.
    await run(['stop', '-t', '0', 'ar']);
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/data/f')).body))[0].data).toBe('d\n');
    expect((await listTar((await b.request('GET', '/v1.24/containers/ar/archive?path=/newfile')).body))[0].data).toBe('hi\n');
    await run(['rm', '-f', 'ar']);
    await b.request('DELETE', '/v1.24/volumes/arvol');
  });
});
