// berth keeps working when containerd restarts: the gRPC channel reconnects, and berth's own supervised containerd
// is started again when it dies.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { Containerd } from '../../src/containerd/client';
import { startPrivateContainerd, PrivateContainerd } from '../helpers/private-containerd';
import { startDaemon } from '../../src/daemon';
import { DEFAULTS } from '../../src/config';
import { silentLogger } from '../../src/log';
import { request } from '../helpers/berth';
import { socketAlive } from '../../src/containerd/supervisor';
import { buildBusyboxImage } from '../helpers/busybox-image';

function kill(pid: number, sig: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Stops a daemon with its own containerd (pid in pidFile) and removes its folder. */
async function stopOwn(daemon: { close(): Promise<void> }, pidFile: string, dir: string): Promise<void> {
  await daemon.close();
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  kill(pid, 'SIGTERM');
  await waitGone(pid);
  fs.rmSync(dir, { recursive: true, force: true });
}

test('the client reconnects after containerd is killed and started again', async () => {
  const ctd: PrivateContainerd = await startPrivateContainerd();
  const ctr = new Containerd({ address: ctd.address, namespace: 'berth-reconnect' });
  try {
    expect((await ctr.version.Version({})).version).toMatch(/^1\./);
    kill(ctd.pid);
    await waitGone(ctd.pid);
    await expect(ctr.version.Version({}, { timeoutMs: 500 })).rejects.toBeTruthy();
    // Same config, same address.
    const child = spawn('containerd', ['--config', path.join(ctd.dir, 'config.toml')], { detached: true, stdio: 'ignore' });
    child.unref();
    ctd.pid = child.pid!;
    const v = await ctr.waitReady(15_000);
    expect(v.version).toMatch(/^1\./);
  } finally {
    ctr.close();
    kill(ctd.pid, 'SIGTERM');
    await waitGone(ctd.pid);
    fs.rmSync(ctd.dir, { recursive: true, force: true });
  }
});

test('berth starts its own containerd when none is given, and restarts it when it dies', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-own-'));
  const socket = path.join(dir, 'b.sock');
  const config = { ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), namespace: 'berth-own' };
  const daemon = await startDaemon(config, silentLogger());
  const pidFile = path.join(config.execRoot, 'containerd', 'containerd.pid');
  try {
    expect(fs.statSync(socket).mode & 0o777).toBe(0o660);
    const info = (await request(socket, 'GET', '/v1.24/info')).json();
    expect(info.ExecutionDriver).toMatch(/^containerd 1\./);
    const pid1 = Number(fs.readFileSync(pidFile, 'utf8'));
    kill(pid1);
    await waitGone(pid1);
    // The supervisor notices within a few seconds and starts a new one at the same address.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && Number(fs.readFileSync(pidFile, 'utf8')) === pid1) await new Promise((r) => setTimeout(r, 100));
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).not.toBe(pid1);
    expect((await daemon.ctr.waitReady(15_000)).version).toMatch(/^1\./);
    expect(await socketAlive(path.join(config.execRoot, 'containerd', 'containerd.sock'))).toBe(true);
  } finally {
    await stopOwn(daemon, pidFile, dir);
  }
});

test('a container that exits while containerd restarts: wait returns its code and die reaches /events', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-own-exit-'));
  const socket = path.join(dir, 'b.sock');
  const config = { ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), namespace: 'berth-own-exit', cgroupParent: '/berth-own-exit' };
  const daemon = await startDaemon(config, silentLogger());
  const pidFile = path.join(config.execRoot, 'containerd', 'containerd.pid');
  try {
    expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sh', '-c', 'sleep 1; exit 7'], HostConfig: { NetworkMode: 'none' } } })).json().Id;
    expect((await request(socket, 'POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    // containerd dies at once and stays down while the container exits (the shim keeps its exit status)
    const pid1 = Number(fs.readFileSync(pidFile, 'utf8'));
    kill(pid1);
    await waitGone(pid1);
    const wait = request(socket, 'POST', `/v1.24/containers/${id}/wait`);
    expect((await wait).json()).toEqual({ Error: null, StatusCode: 7 });
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).not.toBe(pid1);
    const state = (await request(socket, 'GET', `/v1.24/containers/${id}/json`)).json().State;
    expect(state).toMatchObject({ Running: false, ExitCode: 7, Status: 'exited' });
    const until = Math.floor(Date.now() / 1000) + 1;
    const events = (await request(socket, 'GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent(JSON.stringify({ event: ['die'] }))}`)).text.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.map((e) => [e.id, e.Actor.Attributes.exitCode])).toEqual([[id, '7']]);
    await request(socket, 'DELETE', `/v1.24/containers/${id}`);
  } finally {
    await stopOwn(daemon, pidFile, dir);
  }
});
