import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { backoffMs, goJSONError, PluginClient, PluginCallError } from '../../src/plugins/client';
import { discover, parseAddress } from '../../src/plugins/discovery';
import { privilegesOf, samePrivileges, toPluginSpec } from '../../src/translate/plugins';

describe('plugin client', () => {
  test("the engine's back-off: 1 s doubling, at most 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  test("Go's decoder messages for answers that are not JSON", () => {
    expect(goJSONError('this is not json')).toBe("invalid character 'h' in literal true (expecting 'r')");
    expect(goJSONError('nope')).toBe("invalid character 'o' in literal null (expecting 'u')");
    expect(goJSONError('<html>')).toBe("invalid character '<' looking for beginning of value");
    expect(goJSONError('  ')).toBe('EOF');
    expect(goJSONError('{"a":')).toBe('unexpected EOF');
  });
  test('an error answer carries Err; a refused connection is retried within the window, then reported as Go does', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-pc-'));
    const sock = path.join(dir, 'p.sock');
    const srv = net.createServer((c) => c.once('data', () => c.end('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 18\r\nConnection: close\r\n\r\n{"Err":"it broke"}')));
    await new Promise<void>((r) => srv.listen(sock, r));
    const c = new PluginClient({ network: 'unix', address: sock }, { retryWindowMs: 1500, longMs: 5000, shortMs: 5000 });
    await expect(c.call('VolumeDriver.Get', { Name: 'x' }, { timeout: 'short' })).rejects.toEqual(new PluginCallError(500, 'VolumeDriver.Get', 'it broke'));
    await new Promise((r) => srv.close(r));
    const t0 = Date.now();
    await expect(c.call('VolumeDriver.List', {}, { timeout: 'short', retry: true })).rejects.toThrow(`Post "http://${encodeURIComponent(sock)}/VolumeDriver.List": dial unix ${sock}: connect: no such file or directory`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000); // one retry after 1 s; the next (2 s) would leave the window
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('legacy discovery', () => {
  test('sockets first, then .spec and .json files (also in a NAME folder); bad names and unknown protocols', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-disc-'));
    const dirs = { socketDir: path.join(dir, 'run'), specDirs: [path.join(dir, 'etc'), path.join(dir, 'lib')] };
    for (const d of [dirs.socketDir, ...dirs.specDirs]) fs.mkdirSync(d);
    fs.writeFileSync(path.join(dirs.specDirs[0], 'a.spec'), 'tcp://127.0.0.1:9999\n');
    fs.mkdirSync(path.join(dirs.specDirs[1], 'b'));
    fs.writeFileSync(path.join(dirs.specDirs[1], 'b', 'b.json'), '{"Name":"b","Addr":"unix:///x/b.sock"}');
    fs.writeFileSync(path.join(dirs.specDirs[0], 'c.spec'), 'ftp://nope');
    expect(discover(dirs, 'a')).toEqual({ network: 'tcp', address: '127.0.0.1:9999' });
    expect(discover(dirs, 'b')).toEqual({ network: 'unix', address: '/x/b.sock' });
    expect(discover(dirs, 'zz')).toBeUndefined();
    expect(discover(dirs, '../etc/a')).toBeUndefined();
    expect(() => discover(dirs, 'c')).toThrow('Unknown protocol');
    expect(parseAddress('unix:///run/p.sock')).toEqual({ network: 'unix', address: '/run/p.sock' });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('plugin shaping (translate)', () => {
  const config = { Interface: { Types: ['docker.volumedriver/1.0'], Socket: 'p.sock' }, Entrypoint: ['/p', 'a'], WorkDir: '/w', Network: { Type: 'host' }, Mounts: [{ Name: 'm', Source: '/srv', Destination: '/srv', Type: 'bind', Options: ['rbind'] }], Linux: { Capabilities: ['CAP_SYS_ADMIN'], Devices: [{ Path: '/dev/fuse' }] }, Env: [{ Name: 'A', Value: '1' }, { Name: 'B' }], Args: { Value: ['--x'] }, PropagatedMount: '/data' };
  test('privileges in the engine order and wording; compared regardless of order', () => {
    const p = privilegesOf(config);
    expect(p).toEqual([
      { Name: 'network', Description: 'permissions to access a network', Value: ['host'] },
      { Name: 'mount', Description: 'host path to mount', Value: ['/srv'] },
      { Name: 'device', Description: 'host device to access', Value: ['/dev/fuse'] },
      { Name: 'capabilities', Description: 'list of additional capabilities required', Value: ['CAP_SYS_ADMIN'] },
    ]);
    expect(samePrivileges(p, [...p].reverse())).toBe(true);
    expect(samePrivileges(p, p.slice(1))).toBe(false);
    expect(privilegesOf({ Network: { Type: 'bridge' } })).toEqual([]);
  });
  test("the task's spec: entrypoint and args, env, cwd, capabilities, the socket folder, mounts, devices, host network", () => {
    const s = toPluginSpec({ id: 'x', config, rootfs: '/r', socketDir: '/s/x', propagatedDir: '/d/pm', cgroupsPath: '/b/plugin-x' }) as any;
    expect(s.process.args).toEqual(['/p', 'a', '--x']);
    expect(s.process.env).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'A=1']);
    expect(s.process.cwd).toBe('/w');
    expect(s.process.capabilities.bounding).toContain('CAP_SYS_ADMIN');
    expect(s.root).toEqual({ path: '/r', readonly: false });
    expect(s.mounts).toContainEqual({ destination: '/run/docker/plugins', type: 'bind', source: '/s/x', options: ['rbind', 'rprivate'] });
    expect(s.mounts).toContainEqual({ destination: '/data', type: 'bind', source: '/d/pm', options: ['rbind', 'rshared'] });
    expect(s.mounts).toContainEqual({ destination: '/srv', type: 'bind', source: '/srv', options: ['rbind'] });
    expect(s.mounts).toContainEqual({ destination: '/dev/fuse', type: 'bind', source: '/dev/fuse', options: ['rbind', 'rprivate'] });
    expect(s.linux.namespaces.map((n: { type: string }) => n.type)).not.toContain('network');
    expect((toPluginSpec({ id: 'x', config: { Network: { Type: 'none' } }, rootfs: '/r', socketDir: '/s', cgroupsPath: '/c' }) as any).linux.namespaces.map((n: { type: string }) => n.type)).toContain('network');
  });
});
