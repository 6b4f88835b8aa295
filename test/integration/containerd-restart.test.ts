// berth keeps working when containerd restarts: the gRPC channel reconnects, and berth's own supervised containerd
// is started again when it dies.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import * as http from 'node:http';
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

/** A live GET /events stream: every event as it arrives. */
function liveEvents(socket: string): { events: Record<string, any>[]; close(): void; ready: Promise<void> } {
  const events: Record<string, any>[] = [];
  let buf = '';
  let ready!: () => void;
  const p = new Promise<void>((r) => (ready = r));
  const req = http.request({ socketPath: socket, path: '/v1.24/events' }, (res) => {
    ready();
    res.on('data', (c: Buffer) => {
      buf += c.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { events, close: () => req.destroy(), ready: p };
}

/** A live `logs -f` body, decoded from its frames as it arrives. */
function followLogs(socket: string, id: string): { text: () => string; close(): void } {
  let raw = Buffer.alloc(0);
  const req = http.request({ socketPath: socket, path: `/v1.24/containers/${id}/logs?follow=1&stdout=1&stderr=1` }, (res) => res.on('data', (c: Buffer) => (raw = Buffer.concat([raw, c]))));
  req.on('error', () => undefined);
  req.end();
  const text = () => {
    let out = '';
    for (let o = 0; o + 8 <= raw.length; ) {
      const n = raw.readUInt32BE(o + 4);
      out += raw.subarray(o + 8, o + 8 + n).toString();
      o += 8 + n;
    }
    return out;
  };
  return { text, close: () => req.destroy() };
}

test("containerd SIGKILLed and back: live /events and logs -f carry on; an exit while it was down reaches the live stream and wait; new events, OOM included, arrive after", async () => {
  // An external containerd (--containerd), so that the test decides when it comes back: only after the container
  // has exited (berth's own is restarted by its supervisor within 2 s, covered above)
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctd-live-'));
  const gate = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctd-gate-'));
  const socket = path.join(dir, 'b.sock');
  const config = { ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: ctd.address, namespace: 'berth-ctd-live', cgroupParent: '/berth-ctd-live' };
  const daemon = await startDaemon(config, silentLogger());
  const live = liveEvents(socket);
  let logs: { text: () => string; close(): void } | undefined;
  const ids: string[] = [];
  const create = async (cmd: string, hostConfig: Record<string, unknown> = {}) => {
    const r = await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sh', '-c', cmd], HostConfig: { NetworkMode: 'none', ...hostConfig } } });
    expect(r.status).toBe(201);
    const id = r.json().Id as string;
    ids.push(id);
    expect((await request(socket, 'POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    return id;
  };
  const seen = async (f: (e: Record<string, any>) => boolean, ms = 20_000) => {
    for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 50))) if (live.events.some(f)) return true;
    return false;
  };
  try {
    await live.ready;
    expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
    const talker = await create('i=0; while true; do echo line $i; i=$((i+1)); sleep 0.05; done');
    logs = followLogs(socket, talker);
    for (const t0 = Date.now(); !logs.text().includes('line 3\n') && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 50));
    const exiter = await create('sleep 1; exit 5');
    // one that exits as containerd comes back (while berth subscribes again: its file appears right after containerd
    // is started)
    const reconnecting = await create(`while [ ! -e /gate/go ]; do sleep 0.01; done; exit 6`, { Binds: [`${gate}:/gate`] });
    const exiterPid = (await request(socket, 'GET', `/v1.24/containers/${exiter}/json`)).json().State.Pid as number;
    kill(ctd.pid);
    await waitGone(ctd.pid);
    await waitGone(exiterPid);
    expect(fs.existsSync(`/proc/${exiterPid}`)).toBe(false);
    const linesWhileDown = logs.text().split('\n').length;
    await new Promise((r) => setTimeout(r, 500));
    // berth serves meanwhile from its own records
    expect((await request(socket, 'GET', '/v1.24/containers/json?all=1')).status).toBe(200);
    const child = spawn('containerd', ['--config', path.join(ctd.dir, 'config.toml')], { detached: true, stdio: 'ignore' });
    child.unref();
    ctd.pid = child.pid!;
    fs.writeFileSync(path.join(gate, 'go'), '');
    // the exit that happened while containerd was down reaches the stream that was open all along, and wait
    expect(await seen((e) => e.Action === 'die' && e.id === exiter && e.Actor.Attributes.exitCode === '5')).toBe(true);
    expect((await request(socket, 'POST', `/v1.24/containers/${exiter}/wait`)).json()).toEqual({ Error: null, StatusCode: 5 });
    expect((await request(socket, 'GET', `/v1.24/containers/${exiter}/json`)).json().State).toMatchObject({ Running: false, ExitCode: 5 });
    expect(await seen((e) => e.Action === 'die' && e.id === reconnecting && e.Actor.Attributes.exitCode === '6')).toBe(true);
    expect((await request(socket, 'POST', `/v1.24/containers/${reconnecting}/wait`)).json()).toEqual({ Error: null, StatusCode: 6 });
    expect(live.events.filter((e) => e.Action === 'die' && (e.id === reconnecting || e.id === exiter)).length).toBe(2);
    // after it: a new container's start and die, and an OOM kill (known only from containerd's event subscription,
    // which berth opened again) reach the same stream
    const after = await create('exit 3');
    expect(await seen((e) => e.Action === 'start' && e.id === after)).toBe(true);
    expect(await seen((e) => e.Action === 'die' && e.id === after && e.Actor.Attributes.exitCode === '3')).toBe(true);
    const hog = await create('x=a; while true; do x=$x$x; done', { Memory: 16 << 20 });
    expect((await request(socket, 'POST', `/v1.24/containers/${hog}/wait`)).json().StatusCode).toBe(137);
    expect(await seen((e) => e.Action === 'oom' && e.id === hog)).toBe(true);
    expect((await request(socket, 'GET', `/v1.24/containers/${hog}/json`)).json().State.OOMKilled).toBe(true);
    // exec works in the container that ran through it all, and its log went on without a gap (lines written while
    // containerd was down included)
    const ex = (await request(socket, 'POST', `/v1.24/containers/${talker}/exec`, { body: { Cmd: ['true'] } })).json().Id;
    expect((await request(socket, 'POST', `/v1.24/exec/${ex}/start`, { body: { Detach: true } })).status).toBe(200);
    const lines = logs.text().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(linesWhileDown + 5);
    expect(lines).toEqual(lines.map((_, i) => `line ${i}`));
    expect((await request(socket, 'POST', `/v1.24/containers/${talker}/kill`)).status).toBe(204);
    expect(await seen((e) => e.Action === 'die' && e.id === talker)).toBe(true);
  } finally {
    live.close();
    logs?.close();
    for (const id of ids) await request(socket, 'DELETE', `/v1.24/containers/${id}?force=1`).catch(() => undefined);
    await daemon.close();
    kill(ctd.pid, 'SIGTERM');
    await waitGone(ctd.pid);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(gate, { recursive: true, force: true });
    fs.rmSync(ctd.dir, { recursive: true, force: true });
    // the containers' (now empty) cgroup parent
    for (const ctl of fs.existsSync('/sys/fs/cgroup') ? fs.readdirSync('/sys/fs/cgroup') : []) {
      try {
        fs.rmdirSync(path.join('/sys/fs/cgroup', ctl, config.cgroupParent));
      } catch {
        /* none there */
      }
    }
  }
});
