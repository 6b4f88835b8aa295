// containerd stopped under a running berthd (issue 19): berthd waits for it at little cost (its event subscription
// and exit watchers back off; before, each failed subscription became two and berthd reached 100 % CPU and 1.5 GB),
// holds no growing memory, and works again once containerd is back: the running container was kept, its exit is
// reported, new containers run.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { socketAlive } from '../../src/containerd/supervisor';
import { bridgeRules, removeRules } from '../../src/network/bridge';
import { request } from '../helpers/berth';
import { exited } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { startPrivateContainerd, type PrivateContainerd } from '../helpers/private-containerd';

const ROOT = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-away-'));
const socket = path.join(dir, 'b.sock');
const logPath = path.join(dir, 'berthd.log');
const NS = 'berth-away';
const BRIDGE = `baway${process.pid % 10000}`;
const SUBNET = '10.252.95.0/24';
const AWAY_MS = 20_000;
let ctd: PrivateContainerd;
let berthd: ChildProcess;
const api = (method: string, p: string, body?: unknown) => request(socket, method, p, body === undefined ? {} : { body });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** berthd's CPU time (user + system, seconds) and resident memory (MB), from /proc. */
function usage(pid: number): { cpu: number; rssMb: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return { cpu: (Number(f[11]) + Number(f[12])) / 100, rssMb: rss / 1024 };
}

function stopContainerd(sig: NodeJS.Signals): Promise<void> {
  try {
    process.kill(ctd.pid, sig);
  } catch {
    return Promise.resolve();
  }
  return (async () => {
    for (let i = 0; i < 400; i++) {
      try {
        process.kill(ctd.pid, 0);
      } catch {
        return;
      }
      await sleep(25);
    }
  })();
}

async function startContainerdAgain(): Promise<void> {
  const out = fs.openSync(path.join(ctd.dir, 'containerd.log'), 'a');
  const child = spawn('containerd', ['--config', path.join(ctd.dir, 'config.toml')], { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.unref();
  ctd.pid = child.pid!;
  for (const t0 = Date.now(); !(await socketAlive(ctd.address)); ) {
    if (Date.now() - t0 > 20_000) throw new Error('containerd did not start again');
    await sleep(50);
  }
}

beforeAll(async () => {
  ctd = await startPrivateContainerd();
  fs.writeFileSync(path.join(dir, 'daemon.json'), '{}');
  const log = fs.openSync(logPath, 'w');
  berthd = spawn(
    path.join(ROOT, 'bin/berthd'),
    ['-H', `unix://${socket}`, '-l', 'debug', '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', NS,
      '--bridge-name', BRIDGE, '--bridge-subnet', SUBNET, '--cgroup-parent', '/' + NS, '--config-file', path.join(dir, 'daemon.json')],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  for (const t0 = Date.now(); !(await api('GET', '/_ping').then((r) => r.status === 200, () => false)); await sleep(50)) {
    if (berthd.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`berthd did not start: ${fs.readFileSync(logPath, 'utf8').slice(-2000)}`);
  }
  const load = await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) });
  expect(load.status).toBe(200);
}, 60_000);

afterAll(async () => {
  if (berthd && berthd.exitCode === null) {
    for (const c of (await api('GET', '/v1.24/containers/json?all=1').then((r) => r.json(), () => [])) as { Id: string }[]) await api('DELETE', `/v1.24/containers/${c.Id}?force=1`).catch(() => undefined);
    berthd.kill('SIGTERM');
    await exited(berthd);
  }
  if (ctd) await stopContainerd('SIGTERM');
  await new Promise<void>((r) => spawn('ip', ['link', 'delete', BRIDGE], { stdio: 'ignore' }).on('exit', () => r()).on('error', () => r()));
  await removeRules(bridgeRules(BRIDGE, SUBNET, false));
  for (const ctl of fs.existsSync('/sys/fs/cgroup') ? fs.readdirSync('/sys/fs/cgroup') : []) {
    try {
      fs.rmdirSync(path.join('/sys/fs/cgroup', ctl, NS));
    } catch {
      /* none there */
    }
  }
  if (ctd) fs.rmSync(ctd.dir, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('containerd away for 20 s: berthd stays quiet and small, then works again once containerd is back', async () => {
  const sleeper = (await api('POST', '/v1.24/containers/create?name=sleeper', { Image: 'busybox', Cmd: ['sleep', '1000'], HostConfig: { NetworkMode: 'none' } })).json().Id;
  expect((await api('POST', `/v1.24/containers/${sleeper}/start`)).status).toBe(204);
  // an /events stream open all along: the sleeper's die after containerd's return reaches it
  const events: Record<string, unknown>[] = [];
  const stream = http.get({ socketPath: socket, path: `/v1.24/events?filters=${encodeURIComponent(JSON.stringify({ container: [sleeper], event: ['die'] }))}` }, (res) =>
    res.on('data', (c: Buffer) => c.toString().split('\n').filter(Boolean).forEach((l) => events.push(JSON.parse(l)))),
  );
  stream.on('error', () => undefined);
  await sleep(500);

  const before = usage(berthd.pid!);
  const logBefore = fs.readFileSync(logPath, 'utf8').length;
  await stopContainerd('SIGKILL');
  // a client asking now and then while containerd is away gets answers, not a hang
  for (const t0 = Date.now(); Date.now() - t0 < AWAY_MS; await sleep(2000)) {
    expect((await api('GET', '/_ping')).status).toBe(200);
    const list = await api('GET', '/v1.24/containers/json?all=1');
    expect(list.status).toBe(200);
  }
  const during = usage(berthd.pid!);
  const resubscriptions = fs.readFileSync(logPath, 'utf8').slice(logBefore).split('\n').filter((l) => l.includes('subscribing to containerd events again')).length;
  // (idle berthd costs ~0.1 s of CPU in 20 s; the doubling subscriptions cost seconds and grew RSS by 100+ MB)
  expect(during.cpu - before.cpu).toBeLessThan(2);
  expect(during.rssMb - before.rssMb).toBeLessThan(30);
  // 200 ms doubling to 5 s with jitter: about 8-12 subscriptions in 20 s
  expect(resubscriptions).toBeGreaterThan(2);
  expect(resubscriptions).toBeLessThan(20);

  await startContainerdAgain();
  // berth resumes within the channel's reconnect wait (at most 5 s) and the event subscription's (at most 5 s)
  for (const t0 = Date.now(); ; await sleep(200)) {
    const r = await api('GET', `/v1.24/containers/${sleeper}/json`);
    if (r.status === 200 && r.json().State.Running) break;
    if (Date.now() - t0 > 15_000) throw new Error(`berth did not resume: ${r.status} ${r.text}`);
  }
  await sleep(6000); // the event subscription is back (its next attempt comes within 5 s)
  expect((await api('POST', `/v1.24/containers/${sleeper}/kill`)).status).toBe(204);
  expect((await api('POST', `/v1.24/containers/${sleeper}/wait`)).json().StatusCode).toBe(137);
  for (const t0 = Date.now(); events.length === 0 && Date.now() - t0 < 5000; ) await sleep(50);
  expect(events).toMatchObject([{ status: 'die', id: sleeper, Actor: { Attributes: { exitCode: '137' } } }]);
  stream.destroy();
  const run = (await api('POST', '/v1.24/containers/create?name=after', { Image: 'busybox', Cmd: ['echo', 'back'], HostConfig: { NetworkMode: 'none' } })).json().Id;
  expect((await api('POST', `/v1.24/containers/${run}/start`)).status).toBe(204);
  expect((await api('POST', `/v1.24/containers/${run}/wait`)).json().StatusCode).toBe(0);
  expect((await api('GET', `/v1.24/containers/${run}/logs?stdout=1`)).body.subarray(8).toString()).toBe('back\n');
}, 90_000);
