// Legacy volume plugins (found by socket or spec file in berth's configured directories) with the test fixture
// (test/fixtures/volume-plugin), driven with the docker CLI at API 1.24 and over the API. Answers compared with
// the reference engine's (Docker 20.10 with the same fixture).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { LegacyPlugin, startLegacyPlugin } from '../helpers/plugin-fixture';

let b: TestBerth;
const plugins: LegacyPlugin[] = [];
const start = async (name: string, mode = 'ok', socket?: string): Promise<LegacyPlugin> => {
  const p = await startLegacyPlugin(socket ?? path.join(b.config.pluginSocketDir, `${name}.sock`), path.join(b.dir, `root-${name}`), mode);
  plugins.push(p);
  return p;
};
const docker = (...args: string[]) => b.docker(args, { apiVersion: '1.24' });
const HEX64 = /^[a-f0-9]{64}$/;

beforeAll(async () => {
  // short retry window and deadlines (the engine's are 30 s, 2 min, 1 min) so a vanished or hung driver is quick
  b = await startTestBerth({ config: { pluginTimings: { retryWindowMs: 1500, longMs: 2000, shortMs: 2000 } } });
  await loadBusybox(b);
});
afterAll(async () => {
  for (const p of plugins) await p.stop();
  await b?.close();
});

describe('legacy volume plugins', () => {
  test('volume create -d, run -v (data through the driver), --volume-driver, VolumesFrom, ls, inspect, rm, /info', async () => {
    const p = await start('bfl');
    expect(await docker('volume', 'create', '-d', 'bfl', '--opt', 'a=b', 'lv1')).toMatchObject({ code: 0, stdout: 'lv1\n' });
    expect(p.calls()).toContain('VolumeDriver.Create lv1 - {"a":"b"}');
    const run = await docker('run', '--rm', '-v', 'lv1:/p', 'busybox', 'sh', '-c', 'echo hello > /p/f; ls /p');
    expect(run).toMatchObject({ stderr: '', code: 0, stdout: 'f\n' });
    expect(fs.readFileSync(path.join(p.root, 'lv1', 'f'), 'utf8')).toBe('hello\n');
    // one mount id per mounting container, the same for Mount and Unmount (unmount after the exit)
    const mountIds = () => p.calls().filter((c) => /^VolumeDriver\.(Mount|Unmount) /.test(c));
    for (let i = 0; i < 50 && mountIds().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const [m, u] = mountIds().map((c) => c.split(' '));
    expect(m[0]).toBe('VolumeDriver.Mount');
    expect(u[0]).toBe('VolumeDriver.Unmount');
    expect(m[2]).toMatch(HEX64);
    expect(u[2]).toBe(m[2]);
    // --volume-driver creates the volume through the driver
    const r2 = await docker('run', '--rm', '--volume-driver', 'bfl', '-v', 'lv2:/p', 'busybox', 'sh', '-c', 'echo two > /p/g');
    expect(r2.code).toBe(0);
    expect(fs.readFileSync(path.join(p.root, 'lv2', 'g'), 'utf8')).toBe('two\n');
    // VolumesFrom mounts the same volume with an id of its own
    expect((await docker('create', '--name', 'holder', '-v', 'lv1:/p', 'busybox', 'true')).code).toBe(0);
    expect(await docker('run', '--rm', '--volumes-from', 'holder', 'busybox', 'cat', '/p/f')).toMatchObject({ code: 0, stdout: 'hello\n' });
    const ids = new Set(mountIds().map((c) => c.split(' ')[2]));
    expect(ids.size).toBe(3);
    expect((await docker('rm', 'holder')).code).toBe(0);
    // a volume the driver has that berth did not create is listed too
    fs.mkdirSync(path.join(p.root, 'outside'));
    const ls = await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}');
    expect(ls.stdout.split('\n').filter((l) => l.startsWith('bfl '))).toEqual(['bfl lv1', 'bfl lv2', 'bfl outside']);
    const ins = await b.request('GET', '/v1.24/volumes/lv1');
    expect(ins.json()).toEqual({ CreatedAt: expect.any(String), Name: 'lv1', Driver: 'bfl', Mountpoint: path.join(p.root, 'lv1'), Status: { fixture: 'yes' }, Labels: null, Scope: 'local', Options: { a: 'b' } });
    expect((await b.request('GET', '/v1.24/info')).json().Plugins.Volume).toEqual(['bfl', 'local']);
    expect((await docker('volume', 'rm', 'lv2')).code).toBe(0);
    expect(fs.existsSync(path.join(p.root, 'lv2'))).toBe(false);
    expect(p.calls()).toContain('VolumeDriver.Remove lv2 -');
  });

  test('found by .spec and .json files in the spec directory', async () => {
    const dir = b.config.pluginSpecDirs[0];
    fs.mkdirSync(dir, { recursive: true });
    const s1 = await start('bfs', 'ok', path.join(b.dir, 'elsewhere', 'bfs.sock'));
    fs.writeFileSync(path.join(dir, 'bfs.spec'), `unix://${s1.socket}\n`);
    const s2 = await start('bfj', 'ok', path.join(b.dir, 'elsewhere', 'bfj.sock'));
    fs.mkdirSync(path.join(dir, 'bfj'));
    fs.writeFileSync(path.join(dir, 'bfj', 'bfj.json'), JSON.stringify({ Name: 'bfj', Addr: `unix://${s2.socket}` }));
    expect((await docker('volume', 'create', '-d', 'bfs', 'sv')).code).toBe(0);
    expect((await docker('volume', 'create', '-d', 'bfj', 'jv')).code).toBe(0);
    expect(s1.calls()).toContain('VolumeDriver.Create sv -');
    expect(s2.calls()).toContain('VolumeDriver.Create jv -');
    const r = await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'nv', Driver: 'nothere' } });
    expect([r.status, r.json()]).toEqual([404, { message: 'create nv: error looking up volume plugin nothere: plugin "nothere" not found' }]);
  });

  test('a driver answering garbage or hanging: start fails cleanly, the container stays created, nothing stays mounted', async () => {
    const g = await start('bfg', 'garbage');
    const h = await start('bfh', 'hang');
    for (const [d, v] of [['bfg', 'gv'], ['bfh', 'hv']]) expect((await docker('volume', 'create', '-d', d, v)).code).toBe(0);
    const cg = (await docker('create', '-v', 'gv:/p', 'busybox', 'true')).stdout.trim();
    const ch = (await docker('create', '-v', 'hv:/p', 'busybox', 'true')).stdout.trim();
    const sg = await b.request('POST', `/v1.24/containers/${cg}/start`);
    // the reference: 500, the Go decoder's message, the container left created with ExitCode 128
    expect([sg.status, sg.json()]).toEqual([500, { message: "error while mounting volume '': invalid character 'h' in literal true (expecting 'r')" }]);
    const t0 = Date.now();
    const sh = await b.request('POST', `/v1.24/containers/${ch}/start`);
    expect(Date.now() - t0).toBeLessThan(5000); // bounded by the (shortened) 2 min deadline
    expect(sh.status).toBe(500);
    expect(sh.json().message).toBe(`error while mounting volume '': Post "http://${encodeURIComponent(h.socket)}/VolumeDriver.Mount": context deadline exceeded`);
    for (const id of [cg, ch]) {
      const st = (await b.request('GET', `/v1.24/containers/${id}/json`)).json().State;
      expect([st.Status, st.ExitCode, st.Running]).toEqual(['created', 128, false]);
      const rec = JSON.parse(fs.readFileSync(path.join(b.config.dataRoot, 'containers', id, 'config.v2.json'), 'utf8'));
      expect(rec.MountPoints.filter((m: { ID?: string }) => m.ID)).toEqual([]);
      expect((await docker('rm', id)).code).toBe(0);
    }
    expect(g.calls().filter((c) => c.startsWith('VolumeDriver.Unmount'))).toEqual([]);
  });

  test('a vanished driver: its volumes stay listed with a warning, inspect and rm answer the reference error', async () => {
    const p = await start('bfv');
    expect((await docker('volume', 'create', '-d', 'bfv', 'vv')).code).toBe(0);
    await p.stop();
    const ls = await b.request('GET', '/v1.24/volumes');
    expect(ls.status).toBe(200);
    const url = `http://${encodeURIComponent(p.socket)}`;
    const dial = `dial unix ${p.socket}: connect: no such file or directory`;
    expect(ls.json().Volumes.find((v: { Name: string }) => v.Name === 'vv')).toMatchObject({ Driver: 'bfv' });
    expect(ls.json().Warnings).toEqual([`list bfv: Post "${url}/VolumeDriver.List": ${dial}`]);
    const get = `get vv: error while checking if volume "vv" exists in driver "bfv": Post "${url}/VolumeDriver.Get": ${dial}`;
    for (const [method, p2] of [['GET', '/v1.24/volumes/vv'], ['DELETE', '/v1.24/volumes/vv']]) {
      const r = await b.request(method, p2);
      expect([r.status, r.json()]).toEqual([500, { message: get }]);
    }
  });
});
