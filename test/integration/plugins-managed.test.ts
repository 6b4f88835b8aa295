// Managed plugins (API 1.24) with the test fixture pushed to a local docker-registry as a plugin (manifest, config
// application/vnd.docker.plugin.v1+json, rootfs layer): pull (the spec's form and the reference's), inspect, enable,
// volumes through it with the docker CLI, disable, remove, and the bad inputs with the answers the 20.10 reference gives (status per the spec where it lists one).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { pushPluginFixture } from '../helpers/plugin-fixture';
import { startRegistry, TestRegistry } from '../helpers/registry';

let b: TestBerth;
let reg: TestRegistry;
const docker = (...args: string[]) => b.docker(args, { apiVersion: '1.24' });
const NETWORK_HOST = [{ Name: 'network', Description: 'permissions to access a network', Value: ['host'] }];

beforeAll(async () => {
  reg = await startRegistry();
  await Promise.all([
    pushPluginFixture(reg.host, 'berth/fixture', 'latest'),
    pushPluginFixture(reg.host, 'berth/fixture', 'exit', 'exit'),
    pushPluginFixture(reg.host, 'berth/fixture', 'nosock', 'nosock'),
    pushPluginFixture(reg.host, 'berth/notplugin', 'latest', 'ok', { configMediaType: 'application/vnd.docker.container.image.v1+json' }),
  ]);
  b = await startTestBerth({ logLevel: 'warn', config: { pluginTimings: { retryWindowMs: 1500, longMs: 5000, shortMs: 5000 } } });
  await loadBusybox(b);
}, 60_000);
afterAll(async () => {
  for (const p of ((await b?.request('GET', '/v1.24/plugins'))?.json() ?? []) as { Name: string; Tag: string; Active: boolean }[]) {
    if (p.Active) await b.request('POST', `/v1.24/plugins/${p.Name}:${p.Tag}/disable`);
    await b.request('DELETE', `/v1.24/plugins/${p.Name}:${p.Tag}`);
  }
  // a failed test may leave a plugin's rootfs mounted under the test's folder
  for (const l of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const target = l.split(' ')[4];
    if (b && target?.startsWith(b.dir)) execFileSync('umount', ['-l', target]);
  }
  await b?.close();
  await reg?.close();
});

const pullRef = (remote: string, name: string, body: unknown) => b.request('POST', `/v1.24/plugins/pull?remote=${encodeURIComponent(remote)}&name=${name}`, { body });

describe('managed plugins', () => {
  test('pull, inspect, enable, volumes through it (CLI), disable, remove (a SIGKILLed berth: plugins-sigkill.test.ts)', async () => {
    const remote = `${reg.host}/berth/fixture`;
    expect((await b.request('GET', `/v1.24/plugins/privileges?remote=${remote}`)).json()).toEqual(NETWORK_HOST);
    const pulled = await pullRef(remote, 'bfx', NETWORK_HOST);
    expect(pulled.status).toBe(200);
    expect(pulled.text).not.toContain('error');
    const list = (await b.request('GET', '/v1.24/plugins')).json();
    expect(list).toHaveLength(1);
    const p = list[0];
    expect(p).toMatchObject({ Name: 'bfx', Tag: 'latest', Active: false, Config: { Mounts: [], Env: ['DEBUG=0'], Args: [], Devices: [] } });
    expect(p.Manifest).toMatchObject({ ManifestVersion: 'v0', Interface: { Types: ['docker.volumedriver/1.0'], Socket: 'fixture.sock' }, Entrypoint: ['/fixture', '/run/docker/plugins/fixture.sock', '/data', 'ok'], Network: { Type: 'host' } });
    expect(p.Id).toMatch(/^[a-f0-9]{64}$/);
    for (const n of ['bfx', 'bfx:latest', 'bfx/json', p.Id.slice(0, 12)]) expect((await b.request('GET', `/v1.24/plugins/${n}`)).json()).toEqual(p);
    // the spec's form: name= is the remote, the answer the privileges
    const spec = await b.request('POST', `/v1.24/plugins/pull?name=${remote}:latest`);
    expect([spec.status, spec.json()]).toEqual([200, NETWORK_HOST]);
    expect((await b.request('GET', `/v1.24/plugins/${remote}`)).json()).toMatchObject({ Name: remote, Tag: 'latest', Active: false });
    expect((await b.request('DELETE', `/v1.24/plugins/${remote}`)).status).toBe(200);

    const en = await b.request('POST', '/v1.24/plugins/bfx/enable?timeout=0');
    expect([en.status, en.text]).toEqual([200, '']);
    expect(fs.statSync(path.join(b.config.pluginSocketDir, p.Id, 'fixture.sock')).isSocket()).toBe(true);
    const again = await b.request('POST', '/v1.24/plugins/bfx/enable');
    expect([again.status, again.json()]).toEqual([500, { message: 'plugin already enabled: plugin bfx:latest is enabled' }]);
    const rm = await b.request('DELETE', '/v1.24/plugins/bfx');
    expect([rm.status, rm.json()]).toEqual([500, { message: 'plugin bfx:latest is enabled' }]);

    expect(await docker('volume', 'create', '-d', 'bfx', '--opt', 'k=v', 'mv1')).toMatchObject({ code: 0, stdout: 'mv1\n' });
    expect(await docker('run', '--rm', '-v', 'mv1:/p', 'busybox', 'sh', '-c', 'echo through-the-plugin > /p/f')).toMatchObject({ code: 0 });
    expect(await docker('run', '--rm', '--volume-driver', 'bfx', '-v', 'mv1:/p', 'busybox', 'cat', '/p/f')).toMatchObject({ code: 0, stdout: 'through-the-plugin\n' });
    const ls = await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}');
    expect(ls.stdout).toContain('bfx:latest mv1\n');
    const ins = (await b.request('GET', '/v1.24/volumes/mv1')).json();
    expect(ins).toMatchObject({ Name: 'mv1', Driver: 'bfx:latest', Mountpoint: '/data/mv1', Status: { fixture: 'yes' } });

    // a container using one of its volumes keeps the plugin enabled
    const c = await docker('create', '-v', 'mv1:/p', 'busybox', 'true');
    expect(c.code).toBe(0);
    const dis = await b.request('POST', '/v1.24/plugins/bfx/disable');
    expect([dis.status, dis.json()]).toEqual([409, { message: 'plugin bfx:latest is in use' }]);
    expect((await docker('rm', c.stdout.trim())).code).toBe(0);

    expect((await b.request('POST', '/v1.24/plugins/bfx/disable')).status).toBe(200);
    expect(fs.existsSync(path.join(b.config.pluginSocketDir, p.Id))).toBe(false);
    const dd = await b.request('POST', '/v1.24/plugins/bfx/disable');
    expect([dd.status, dd.json()]).toEqual([500, { message: 'plugin is already disabled: plugin bfx:latest found but disabled' }]);
    // a volume of a disabled plugin: its driver is not there
    const gone = await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'mv2', Driver: 'bfx' } });
    expect(gone.status).toBe(404);
    expect((await b.request('DELETE', '/v1.24/plugins/bfx')).status).toBe(200);
    const nf = await b.request('GET', '/v1.24/plugins/bfx');
    expect([nf.status, nf.json()]).toEqual([404, { message: 'plugin "bfx" not found' }]);
  }, 90_000);

  test('bad input: the reference messages, and nothing installed or left enabled', async () => {
    // the socket that never appears: the engine's bounded wait (0.5 s + 3 × 3 s), run alongside the rest
    expect((await pullRef(`${reg.host}/berth/fixture:nosock`, 'bnosock', NETWORK_HOST)).status).toBe(200);
    const t0 = Date.now();
    const nosock = b.request('POST', '/v1.24/plugins/bnosock/enable');

    const bad = await b.request('POST', '/v1.24/plugins/pull?name=Upper');
    expect([bad.status, bad.json()]).toEqual([500, { message: 'invalid reference format: repository name must be lowercase' }]);
    const missing = await b.request('POST', `/v1.24/plugins/pull?name=${reg.host}/berth/nothere`);
    expect(missing.status).toBe(404);
    const np = await b.request('POST', `/v1.24/plugins/pull?name=${reg.host}/berth/notplugin`);
    expect([np.status, np.json()]).toEqual([500, { message: `did not find plugin config for specified reference ${reg.host}/berth/notplugin:latest` }]);
    const npr = await pullRef(`${reg.host}/berth/notplugin`, 'bnp', []);
    expect(npr.text.trim().split('\n').pop()).toBe('{"errorDetail":{"message":"fetched plugin image but plugin config is missing"},"error":"fetched plugin image but plugin config is missing"}');
    const wrong = await pullRef(`${reg.host}/berth/fixture`, 'bwrong', []);
    expect(wrong.text.trim().split('\n').pop()).toBe('{"errorDetail":{"message":"incorrect privileges"},"error":"incorrect privileges"}');
    const nobody = await b.request('POST', `/v1.24/plugins/pull?remote=${reg.host}/berth/fixture&name=bnobody`);
    expect(nobody.status).toBe(400);
    expect((await pullRef(`${reg.host}/berth/fixture:exit`, 'bexit', NETWORK_HOST)).status).toBe(200);
    const dup = await b.request('POST', `/v1.24/plugins/pull?remote=${reg.host}/berth/fixture:exit&name=bexit`, { body: NETWORK_HOST });
    expect([dup.status, dup.json()]).toEqual([500, { message: 'plugin bexit:latest already exists' }]);

    // an entrypoint that exits at once: enable fails with the engine's message, the plugin stays disabled
    const ex = await b.request('POST', '/v1.24/plugins/bexit/enable');
    const exId = (await b.request('GET', '/v1.24/plugins/bexit')).json().Id;
    expect([ex.status, ex.json()]).toEqual([500, { message: `dial unix ${path.join(b.config.pluginSocketDir, exId, 'fixture.sock')}: connect: no such file or directory` }]);
    expect((await b.request('GET', '/v1.24/plugins/bexit')).json().Active).toBe(false);
    await expect(b.daemon.ctr.tasks.Get({ container_id: `plugin-${exId}` })).rejects.toThrow();

    const ns = await nosock;
    expect(Date.now() - t0).toBeGreaterThan(9000);
    const nsId = (await b.request('GET', '/v1.24/plugins/bnosock')).json().Id;
    expect([ns.status, ns.json()]).toEqual([500, { message: `dial unix ${path.join(b.config.pluginSocketDir, nsId, 'fixture.sock')}: connect: no such file or directory` }]);
    expect((await b.request('GET', '/v1.24/plugins/bnosock')).json().Active).toBe(false);
    await expect(b.daemon.ctr.tasks.Get({ container_id: `plugin-${nsId}` })).rejects.toThrow();
    expect(((await b.request('GET', '/v1.24/plugins')).json() as { Name: string }[]).map((x) => x.Name).sort()).toEqual(['bexit', 'bnosock']);
    const badTimeout = await b.request('POST', '/v1.24/plugins/bexit/enable?timeout=x');
    expect(badTimeout.status).toBe(400);
  }, 60_000);
});
