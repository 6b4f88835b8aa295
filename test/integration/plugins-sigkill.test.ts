// The real daemon (bin/berthd) SIGKILLed while a managed plugin is enabled and a running container uses one of its
// volumes: after the restart the plugin's task is the same one (adopted), the volume is listed, and stopping the
// container unmounts the volume with the id it was mounted with; the container and the plugin can be removed.
// Needs `npm run build` first (scripts/test.sh builds before testing).
import { execFile, execFileSync, ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdAddress, request, testBridgeSubnet } from '../helpers/berth';
import { berthdLauncher, exited } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { cleanupNamespace } from '../helpers/cleanup';
import { pushPluginFixture } from '../helpers/plugin-fixture';
import { startRegistry, TestRegistry } from '../helpers/registry';
import { Containerd } from '../../src/containerd/client';
import { bridgeRules, removeRules } from '../../src/network/bridge';

// short: a plugin's socket path (<dir>/plugins/<64 hex>/fixture.sock) must fit a unix socket address (107 bytes)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bpk-'));
const socket = path.join(dir, 'berth.sock');
const namespace = `berth-plugkill-${process.pid}`;
const bridge = `bpk${crypto.randomBytes(3).toString('hex')}`;
const NETWORK_HOST = [{ Name: 'network', Description: 'permissions to access a network', Value: ['host'] }];
let reg: TestRegistry;
let d: ChildProcess | undefined;

const subnet = testBridgeSubnet();
const launcher = berthdLauncher({ dir, namespace, bridge, subnet });
const start = async (): Promise<ChildProcess> =>
  (await launcher.berthd(['-H', `unix://${socket}`, '--plugin-socket-dir', path.join(dir, 'plugins'), '--plugin-spec-dir', path.join(dir, 'specs'), '--log-level', 'error'], { socket })).child;
const docker = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile('docker', args, { env: { ...process.env, DOCKER_HOST: `unix://${socket}`, DOCKER_API_VERSION: '1.24', DOCKER_CONFIG: path.join(dir, 'docker-config') } }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })),
  );

beforeAll(async () => {
  reg = await startRegistry();
  await pushPluginFixture(reg.host, 'berth/fixture', 'latest');
}, 30_000);
afterAll(async () => {
  if (d && d.exitCode === null && d.signalCode === null) {
    d.kill('SIGKILL');
    await exited(d);
  }
  const ctr = new Containerd({ address: containerdAddress(), namespace });
  await cleanupNamespace(ctr);
  ctr.close();
  for (const l of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const target = l.split(' ')[4];
    if (target?.startsWith(dir)) execFileSync('umount', ['-l', target]);
  }
  await new Promise((r) => execFile('ip', ['link', 'delete', bridge], () => r(undefined)));
  await removeRules(bridgeRules(bridge, subnet, false)).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
  await reg?.close();
});

test('SIGKILL with a plugin enabled and its volume in use: plugin adopted, volume listed, unmount on stop', async () => {
  d = await start();
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
  expect((await request(socket, 'POST', `/v1.24/plugins/pull?remote=${reg.host}/berth/fixture&name=bfx`, { body: NETWORK_HOST })).status).toBe(200);
  const en = await request(socket, 'POST', '/v1.24/plugins/bfx/enable');
  expect([en.status, en.text]).toEqual([200, '']);
  const id = (await request(socket, 'GET', '/v1.24/plugins/bfx')).json().Id;
  expect((await docker('volume', 'create', '-d', 'bfx', 'kv')).code).toBe(0);
  const run = await docker('run', '-d', '--network', 'none', '-v', 'kv:/p', 'busybox', 'sh', '-c', 'echo kept > /p/f; sleep 1000');
  expect(run.code).toBe(0);
  const cid = run.stdout.trim();
  const calls = () => fs.readFileSync(path.join(dir, 'data', 'plugins', id, 'rootfs', 'data', '.calls'), 'utf8').split('\n');
  const mountId = calls().find((l) => l.startsWith('VolumeDriver.Mount kv '))!.split(' ')[2];
  const ctr = new Containerd({ address: containerdAddress(), namespace });
  const pid = (await ctr.tasks.Get({ container_id: `plugin-${id}` })).process?.pid;

  d.kill('SIGKILL');
  await exited(d);
  d = await start();
  try {
    expect((await request(socket, 'GET', '/v1.24/plugins/bfx')).json().Active).toBe(true);
    expect((await ctr.tasks.Get({ container_id: `plugin-${id}` })).process?.pid).toBe(pid);
    expect((await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}')).stdout).toContain('bfx:latest kv\n');
    expect(await docker('exec', cid, 'cat', '/p/f')).toMatchObject({ code: 0, stdout: 'kept\n' });
    expect((await docker('stop', '-t', '1', cid)).code).toBe(0);
    for (let i = 0; i < 100 && !calls().includes(`VolumeDriver.Unmount kv ${mountId}`); i++) await new Promise((r) => setTimeout(r, 50));
    expect(calls()).toContain(`VolumeDriver.Unmount kv ${mountId}`);
    expect((await docker('rm', cid)).code).toBe(0);
    expect((await docker('volume', 'rm', 'kv')).code).toBe(0);
    expect((await request(socket, 'POST', '/v1.24/plugins/bfx/disable')).status).toBe(200);
    expect((await request(socket, 'DELETE', '/v1.24/plugins/bfx')).status).toBe(200);
    expect((await request(socket, 'GET', '/v1.24/plugins')).json()).toEqual([]);
  } finally {
    ctr.close();
  }
}, 90_000);
