import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

describe('local volumes against real containerd', () => {
  test('create, list with filters, inspect per version, remove, 404', async () => {
    const c = await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'v1', Labels: { team: 'a' } } });
    expect(c.status).toBe(201);
    expect(c.json()).toEqual({ CreatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), Name: 'v1', Driver: 'local', Mountpoint: path.join(b.config.dataRoot, 'volumes/v1/_data'), Labels: { team: 'a' }, Scope: 'local', Options: null });
    const gen = (await b.request('POST', '/v1.22/volumes/create', { body: {} })).json();
    expect(gen.Name).toMatch(/^[a-f0-9]{64}$/);
    expect(gen.Labels).toBeUndefined();
    const all = (await b.request('GET', '/v1.24/volumes')).json();
    expect(all.Volumes.map((v: { Name: string }) => v.Name).sort()).toEqual([gen.Name, 'v1'].sort());
    expect(all.Warnings).toBeNull();
    const byLabel = (await b.request('GET', `/v1.24/volumes?filters=${encodeURIComponent('{"label":["team=a"]}')}`)).json();
    expect(byLabel.Volumes.map((v: { Name: string }) => v.Name)).toEqual(['v1']);
    expect((await b.request('GET', `/v1.22/volumes?filters=${encodeURIComponent('{"name":["v1"]}')}`)).status).toBe(400);
    expect((await b.request('GET', '/v1.24/volumes/v1')).json().Name).toBe('v1');
    expect((await b.request('GET', '/v1.24/volumes/nope')).json()).toEqual({ message: 'get nope: no such volume' });
    expect((await b.request('DELETE', `/v1.24/volumes/${gen.Name}`)).status).toBe(204);
    expect((await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'xx', Driver: 'nfsplugin' } })).status).toBe(404);
    expect((await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'bad/name' } })).status).toBe(400);
  });

  test('a tmpfs-backed volume from DriverOpts (the local driver mounts it)', async () => {
    const v = (await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'tv', DriverOpts: { type: 'tmpfs', device: 'tmpfs', o: 'size=1m' } } })).json();
    const mounts = fs.readFileSync('/proc/mounts', 'utf8');
    expect(mounts).toContain(` ${v.Mountpoint} tmpfs `);
    expect((await b.request('DELETE', '/v1.24/volumes/tv')).status).toBe(204);
    expect(fs.readFileSync('/proc/mounts', 'utf8')).not.toContain(` ${v.Mountpoint} `);
  });

  test('named volumes persist data, ro binds, anonymous volumes pre-filled from the image, volumes-from, rm -v, in-use 409', async () => {
    const run = (args: string[]) => b.docker(args, { apiVersion: '1.24' });
    expect((await run(['run', '--rm', '-v', 'v1:/data', 'busybox', 'sh', '-c', 'echo kept > /data/f'])).code).toBe(0);
    expect((await run(['run', '--rm', '-v', 'v1:/data:ro', 'busybox', 'cat', '/data/f'])).stdout).toBe('kept\n');
    const ro = await run(['run', '--rm', '-v', 'v1:/data:ro', 'busybox', 'sh', '-c', 'echo x > /data/g']);
    expect(ro.code).not.toBe(0);
    const host = path.join(b.dir, 'hostdir');
    fs.mkdirSync(host);
    fs.writeFileSync(path.join(host, 'h'), 'from host\n');
    expect((await run(['run', '--rm', '-v', `${host}:/h:ro`, 'busybox', 'cat', '/h/h'])).stdout).toBe('from host\n');
    await run(['create', '--name', 'anon', '-v', '/etc', 'busybox', 'ls', '/etc']);
    const m = (await b.request('GET', '/v1.24/containers/anon/json')).json().Mounts;
    expect(m).toHaveLength(1);
    expect(m[0]).toEqual(expect.objectContaining({ Destination: '/etc', Driver: 'local', RW: true, Propagation: '' }));
    // filled from the container's root filesystem, the init layer's mount points with it, as the reference fills it
    expect(fs.readdirSync(m[0].Source).sort()).toEqual(['group', 'hostname', 'hosts', 'mtab', 'passwd', 'resolv.conf']);
    const old = (await b.request('GET', '/v1.18/containers/anon/json')).json();
    expect(old.Volumes).toEqual({ '/etc': m[0].Source });
    expect(old.VolumesRW).toEqual({ '/etc': true });
    // (read-only at /etc, under the etc binds: their mount points are in it)
    expect((await run(['run', '--rm', '--volumes-from', 'anon:ro', 'busybox', 'ls', '/etc'])).stdout).toBe('group\nhostname\nhosts\nmtab\npasswd\nresolv.conf\n');
    const inUse = await b.request('DELETE', `/v1.24/volumes/${m[0].Name}`);
    expect(inUse.status).toBe(409);
    expect(inUse.json().message).toMatch(/^remove [a-f0-9]{64}: volume is in use - \[[a-f0-9]{64}\]$/);
    const dangling = (await b.request('GET', `/v1.24/volumes?filters=${encodeURIComponent('{"dangling":["true"]}')}`)).json();
    expect(dangling.Volumes.map((v: { Name: string }) => v.Name)).toEqual(['v1']);
    expect((await run(['rm', '-v', 'anon'])).code).toBe(0);
    expect(fs.existsSync(m[0].Source)).toBe(false);
    const tmpfs = await run(['run', '--rm', '--tmpfs', '/run:size=1m', 'busybox', 'sh', '-c', 'grep " /run " /proc/mounts']);
    expect(tmpfs.stdout).toMatch(/^tmpfs \/run tmpfs .*size=1024k/);
    const ls = await run(['volume', 'ls', '-q']);
    expect(ls.stdout).toBe('v1\n');
  });
});
