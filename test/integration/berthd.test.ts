// The real daemon binary (bin/berthd → dist/): flags, SIGKILL at any moment loses no image, SIGTERM stops cleanly.
// Needs `npm run build` first (scripts/test.sh builds before testing).
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdAddress, firstEvent, request } from '../helpers/berth';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { cleanupNamespace, listSnapshots } from '../helpers/cleanup';
import { Containerd } from '../../src/containerd/client';
import * as snapshotApi from '../../src/containerd/snapshots';
import * as taskApi from '../../src/containerd/tasks';
import { SNAPSHOTTER } from '../../src/services/images';

const ROOT = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berthd-it-'));
const socket = path.join(dir, 'berth.sock');
const namespace = `berth-bin-${process.pid}`;

function start(): Promise<ChildProcess> {
  const child = spawn(path.join(ROOT, 'bin/berthd'), ['-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', containerdAddress(), '--namespace', namespace, '--log-level', 'error'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const poll = async () => {
      if (child.exitCode !== null) return reject(new Error(`berthd exited ${child.exitCode}`));
      const ok = await request(socket, 'GET', '/_ping').then((r) => r.status === 200, () => false);
      if (ok) return resolve(child);
      if (Date.now() - t0 > 15_000) return reject(new Error('berthd did not answer'));
      setTimeout(poll, 20);
    };
    void poll();
  });
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

afterAll(async () => {
  const ctr = new Containerd({ address: containerdAddress(), namespace });
  await cleanupNamespace(ctr);
  ctr.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('berthd --help and a bad flag', async () => {
  const help = spawn(path.join(ROOT, 'bin/berthd'), ['--help'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  help.stdout!.on('data', (c) => (out += c));
  expect(await exited(help)).toBe(0);
  expect(out).toMatch(/--containerd/);
  const bad = spawn(path.join(ROOT, 'bin/berthd'), ['--bogus'], { stdio: 'ignore' });
  expect(await exited(bad)).toBe(125);
});

test('SIGKILL loses no image; SIGTERM stops cleanly', async () => {
  let d = await start();
  expect(fs.statSync(socket).mode & 0o777).toBe(0o660);
  const load = await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['killed:1'] }) });
  expect(load.text).toContain('Loaded image: killed:1');
  d.kill('SIGKILL');
  await exited(d);
  d = await start();
  const list = (await request(socket, 'GET', '/v1.24/images/json')).json();
  expect(list.map((i: { RepoTags: string[] }) => i.RepoTags[0])).toEqual(['killed:1']);
  d.kill('SIGTERM');
  expect(await exited(d)).toBe(0);
});

test('SIGHUP announces a reload (daemon event from 1.24); the event ring survives a restart for since replay', async () => {
  const since = Math.floor(Date.now() / 1000) - 1;
  let d = await start();
  const info = (await request(socket, 'GET', '/v1.24/info')).json();
  // a live subscriber sees the reload
  const seen = firstEvent(socket, { type: ['daemon'] });
  await seen.subscribed;
  process.kill(d.pid!, 'SIGHUP');
  const ev = await seen.event;
  expect(ev).toMatchObject({ Type: 'daemon', Action: 'reload', Actor: { ID: info.ID } });
  expect(ev.Actor.Attributes.name).toBe(info.Name);
  // the daemon keeps serving after the signal
  expect((await request(socket, 'GET', '/_ping')).status).toBe(200);
  d.kill('SIGTERM');
  await exited(d);
  d = await start();
  const until = Math.floor(Date.now() / 1000) + 1;
  const replay = (await request(socket, 'GET', `/v1.24/events?since=${since}&until=${until}`)).text.trim().split('\n').map((l) => JSON.parse(l));
  expect(replay.map((e) => `${e.Type}:${e.Action}`)).toContain('daemon:reload');
  d.kill('SIGTERM');
  await exited(d);
});

test('a build SIGKILLed mid-RUN leaves nothing once berth is back: no step container, context, lease or step snapshot', async () => {
  let d = await start();
  await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) });
  const tar = await import('tar-stream');
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile' }, 'FROM busybox\nCOPY f /f\nRUN sleep 60\n');
  pack.entry({ name: 'f' }, 'x');
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  const body = Buffer.concat(chunks);
  const http = await import('node:http');
  await new Promise<void>((resolve, reject) => {
    const req = http.request({ socketPath: socket, method: 'POST', path: '/v1.24/build', headers: { 'Content-Length': body.length } }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
        if (text.includes('Running in')) {
          d.kill('SIGKILL');
          resolve();
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    setTimeout(() => reject(new Error('no RUN step seen')), 30_000);
    req.end(body);
  });
  await exited(d);
  d = await start();
  expect((await request(socket, 'GET', '/v1.24/containers/json?all=1')).json()).toEqual([]);
  expect(fs.readdirSync(path.join(dir, 'data', 'builder', 'tmp'))).toEqual([]);
  expect(fs.readdirSync(path.join(dir, 'data', 'builder', 'containers'))).toEqual([]);
  const ctr = new Containerd({ address: containerdAddress(), namespace });
  try {
    expect((await ctr.leases.List({ filters: [] })).leases.filter((l) => l.id.startsWith('berth-build'))).toEqual([]);
    const snaps = await listSnapshots(ctr);
    expect(snaps.filter((s) => s.name.startsWith('berth-build') || /^[0-9a-f]{64}(-init)?$/.test(s.name))).toEqual([]);
  } finally {
    ctr.close();
  }
  d.kill('SIGTERM');
  await exited(d);
});

test('a start cut short once its running state was written (the task made, never started): at the next start the task is killed and the run ends, exit 137', async () => {
  let d = await start();
  await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) });
  const made = await request(socket, 'POST', '/v1.24/containers/create?name=cutshort', { body: { Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: { NetworkMode: 'none' } } });
  expect(made.status).toBe(201);
  const id = made.json().Id as string;
  d.kill('SIGKILL');
  await exited(d);
  // What the start leaves when killed between its record write and containerd's Start: the task created, the record running.
  const ctr = new Containerd({ address: containerdAddress(), namespace });
  try {
    const pid = await taskApi.create(ctr, id, await snapshotApi.mounts(ctr, SNAPSHOTTER, id), { stdin: '', stdout: '', stderr: '', terminal: false });
    expect(await taskApi.status(ctr, id)).toBe('CREATED');
    const file = path.join(dir, 'data', 'containers', id, 'config.v2.json');
    const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
    rec.State = { ...rec.State, Status: 'running', Running: true, Pid: pid, StartedAt: new Date().toISOString() };
    fs.writeFileSync(file, JSON.stringify(rec));
    d = await start();
    const state = (await request(socket, 'GET', `/v1.24/containers/${id}/json`)).json().State;
    expect({ Status: state.Status, Running: state.Running, Pid: state.Pid, ExitCode: state.ExitCode }).toEqual({ Status: 'exited', Running: false, Pid: 0, ExitCode: 137 });
    expect(await taskApi.status(ctr, id).catch((err: Error) => err.message)).toMatch(/not found/);
    expect((await request(socket, 'DELETE', `/v1.24/containers/${id}`)).status).toBe(204);
  } finally {
    ctr.close();
  }
  d.kill('SIGTERM');
  await exited(d);
});

// No Tasks.Wait is held per run: exits reach berth through containerd's exit events and, for those no event stream
// carried (berth was down or not yet subscribed), through the task list asked once a subscription is in effect.
test('exits while berthd is SIGKILLed, while it starts again and after it: each recorded once with its code; wait, inspect and die', async () => {
  const gate = fs.mkdtempSync(path.join(os.tmpdir(), 'berthd-gate-'));
  const since = Math.floor(Date.now() / 1000) - 1;
  let d = await start();
  await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) });
  // each exits with its code once its file appears in the bind-mounted folder
  const run = async (name: string, code: number) => {
    const c = await request(socket, 'POST', `/v1.24/containers/create?name=${name}`, { body: { Image: 'busybox', Cmd: ['sh', '-c', `while [ ! -e /gate/${name} ]; do sleep 0.02; done; echo bye; exit ${code}`], HostConfig: { NetworkMode: 'none', Binds: [`${gate}:/gate`] } } });
    expect(c.status).toBe(201);
    const id = c.json().Id as string;
    expect((await request(socket, 'POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    return { id, pid: (await request(socket, 'GET', `/v1.24/containers/${id}/json`)).json().State.Pid as number, code };
  };
  const gone = async (pid: number) => {
    for (const t0 = Date.now(); fs.existsSync(`/proc/${pid}`) && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
  };
  const down = await run('exitsdown', 3);
  const during = await run('exitsstarting', 4);
  const after = await run('exitsafter', 5);
  const stays = await run('stays', 6);
  try {
    d.kill('SIGKILL');
    await exited(d);
    fs.writeFileSync(path.join(gate, 'exitsdown'), '');
    await gone(down.pid);
    // one exits while the new berthd starts (loads, reconciles, subscribes), one once it answers
    const starting = start();
    fs.writeFileSync(path.join(gate, 'exitsstarting'), '');
    d = await starting;
    fs.writeFileSync(path.join(gate, 'exitsafter'), '');
    for (const c of [down, during, after]) {
      expect((await request(socket, 'POST', `/v1.24/containers/${c.id}/wait`)).json()).toEqual({ Error: null, StatusCode: c.code });
      expect((await request(socket, 'GET', `/v1.24/containers/${c.id}/json`)).json().State).toMatchObject({ Status: 'exited', Running: false, Pid: 0, ExitCode: c.code });
    }
    // (the output of a process that ends while no berth holds its FIFOs is gone with the FIFO's buffer: only the one
    // that ended once berthd was back is checked)
    expect((await request(socket, 'GET', `/v1.24/containers/${after.id}/logs?stdout=1`)).body.subarray(8).toString()).toBe('bye\n');
    expect((await request(socket, 'GET', `/v1.24/containers/${stays.id}/json`)).json().State).toMatchObject({ Status: 'running', Pid: stays.pid });
    // and one that ends by a kill through the new berthd
    expect((await request(socket, 'POST', `/v1.24/containers/${stays.id}/kill`)).status).toBe(204);
    expect((await request(socket, 'POST', `/v1.24/containers/${stays.id}/wait`)).json()).toEqual({ Error: null, StatusCode: 137 });
    const until = Math.floor(Date.now() / 1000) + 1;
    const dies = (await request(socket, 'GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent(JSON.stringify({ event: ['die'] }))}`)).text.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => [down, during, after, stays].some((c) => c.id === e.id));
    expect(dies.map((e) => [e.id, e.Actor.Attributes.exitCode]).sort()).toEqual([down, during, after, { ...stays, code: 137 }].map((c) => [c.id, String(c.code)]).sort());
  } finally {
    for (const c of [down, during, after, stays]) await request(socket, 'DELETE', `/v1.24/containers/${c.id}?force=1`).catch(() => undefined);
    d.kill('SIGTERM');
    await exited(d);
    fs.rmSync(gate, { recursive: true, force: true });
  }
});
