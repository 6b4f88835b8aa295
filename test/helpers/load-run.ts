// One load run (issue 19), shared by bench/load.ts (64 and 200 clients for 60 s, against berth and the reference) and
// test/integration/load.test.ts (CI-sized): N clients, each looping create → start → exec → logs → inspect → list →
// kill → wait → rm of a busybox container, with two /events subscribers open. It returns iterations, errors by
// operation (with the first messages), p50/p99/max per operation, what was left behind afterwards (containers, plus
// the target's own inventory: for berth, containerd containers, tasks, snapshots, leases, FIFOs) and the daemon's RSS
// and open fds before, at peak and after.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { Containerd } from '../../src/containerd/client';
import { request, type TestResponse } from './berth';
import { listSnapshots } from './cleanup';

const OP_TIMEOUT_MS = 120_000;
const OPS = ['create', 'start', 'exec', 'logs', 'inspect', 'list', 'kill', 'wait', 'rm'] as const;
export type Op = (typeof OPS)[number];

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] : 0);
const round = (x: number) => +x.toFixed(1);

/** RSS in MB and open fds of a process. */
export function usage(pid: number): { rssMB: number; fds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMB: round(kb / 1024), fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/** The clients' idle keep-alive connections (node's global agent keeps them) are not the daemon's own fds. */
function dropIdleConnections(): void {
  for (const list of Object.values(http.globalAgent.freeSockets)) for (const sock of list ?? []) sock.destroy();
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: no answer in ${OP_TIMEOUT_MS / 1000} s`)), OP_TIMEOUT_MS)))]).finally(() => clearTimeout(t));
}

export interface Target {
  name: 'berth' | 'reference';
  socket: string;
  pid: number;
  /** containerd-level objects of the target's namespace (berth only). */
  inventory?: () => Promise<Record<string, number>>;
}

export interface RunResult {
  clients: number;
  seconds: number;
  iterations: number;
  drainMs: number;
  errors: Partial<Record<Op, number>>;
  firstErrors: string[];
  ms: Record<Op, { n: number; p50: number; p99: number; max: number }>;
  events: { subscribers: number; received: number; streamsOpenAtEnd: number };
  left: Record<string, number>;
  daemon: { before: { rssMB: number; fds: number }; peakRssMB: number; after: { rssMB: number; fds: number } };
}

/** An /events subscriber: counts what arrives until closed. */
function subscribe(socket: string): { count: () => number; open: () => boolean; close: () => void } {
  let n = 0;
  let open = true;
  const req = http.request({ socketPath: socket, method: 'GET', path: '/v1.24/events' }, (res) => {
    res.on('data', (c: Buffer) => (n += c.toString().split('\n').filter((l) => l.includes('"status"')).length));
    res.on('close', () => (open = false));
  });
  req.on('error', () => (open = false));
  req.end();
  return { count: () => n, open: () => open, close: () => req.destroy() };
}

export async function runLoad(t: Target, clients: number, seconds: number, label: string): Promise<RunResult> {
  const times = Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>;
  const errors: Partial<Record<Op, number>> = {};
  const firstErrors: string[] = [];
  let iterations = 0;
  const fail = (op: Op, msg: string) => {
    errors[op] = (errors[op] ?? 0) + 1;
    if (firstErrors.length < 10) firstErrors.push(`${op}: ${msg.slice(0, 300)}`);
  };
  const call = async (op: Op, method: string, p: string, ok: (r: TestResponse) => boolean, body?: unknown): Promise<TestResponse | undefined> => {
    const t0 = process.hrtime.bigint();
    try {
      const r = await withTimeout(request(t.socket, method, p, body === undefined ? {} : { body }), `${op} ${p}`);
      times[op].push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!ok(r)) {
        fail(op, `${r.status} ${r.text}`);
        return undefined;
      }
      return r;
    } catch (err) {
      fail(op, String(err));
      return undefined;
    }
  };
  /** The exec as clients do it: create, start attached (the stream ends with the process), inspect its exit code. */
  const exec = async (id: string): Promise<boolean> => {
    const t0 = process.hrtime.bigint();
    try {
      const c = await withTimeout(request(t.socket, 'POST', `/v1.24/containers/${id}/exec`, { body: { Cmd: ['echo', 'hi'], AttachStdout: true, AttachStderr: true } }), 'exec create');
      if (c.status !== 201) throw new Error(`create ${c.status} ${c.text}`);
      const eid = c.json().Id;
      const s = await withTimeout(request(t.socket, 'POST', `/v1.24/exec/${eid}/start`, { body: { Detach: false, Tty: false } }), 'exec start');
      if (s.status !== 200 || !s.text.includes('hi')) throw new Error(`start ${s.status} ${JSON.stringify(s.text.slice(0, 200))}`);
      const i = await withTimeout(request(t.socket, 'GET', `/v1.24/exec/${eid}/json`), 'exec inspect');
      const ex = i.json();
      if (ex.Running !== false || ex.ExitCode !== 0) throw new Error(`inspect Running ${ex.Running} ExitCode ${ex.ExitCode}`);
      times.exec.push(Number(process.hrtime.bigint() - t0) / 1e6);
      return true;
    } catch (err) {
      fail('exec', String(err));
      return false;
    }
  };
  dropIdleConnections();
  await new Promise((r) => setTimeout(r, 500));
  const before = usage(t.pid);
  const subs = [subscribe(t.socket), subscribe(t.socket)];
  let peak = before.rssMB;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, usage(t.pid).rssMB);
    } catch {
      /* the process is gone: reported by the errors */
    }
  }, 250);
  const end = Date.now() + seconds * 1000;
  const client = async () => {
    while (Date.now() < end) {
      iterations++;
      const c = await call('create', 'POST', '/v1.24/containers/create', (r) => r.status === 201, {
        Image: 'busybox',
        Cmd: ['sh', '-c', 'echo hello; exec sleep 300'],
        Labels: { 'berth-load': label },
        HostConfig: { NetworkMode: 'none' },
      });
      if (!c) continue;
      const id = c.json().Id as string;
      if (await call('start', 'POST', `/v1.24/containers/${id}/start`, (r) => r.status === 204)) {
        await exec(id);
        await call('logs', 'GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1`, (r) => r.status === 200 && r.text.includes('hello'));
        await call('inspect', 'GET', `/v1.24/containers/${id}/json`, (r) => r.status === 200 && r.json().State.Running === true);
        await call('list', 'GET', `/v1.24/containers/json?filters=${encodeURIComponent(JSON.stringify({ label: [`berth-load=${label}`] }))}`, (r) => r.status === 200);
        await call('kill', 'POST', `/v1.24/containers/${id}/kill`, (r) => r.status === 204);
        await call('wait', 'POST', `/v1.24/containers/${id}/wait`, (r) => r.status === 200 && r.json().StatusCode === 137);
      }
      await call('rm', 'DELETE', `/v1.24/containers/${id}?force=1`, (r) => r.status === 204);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const drainMs = Date.now() - end;
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 3000)); // let the daemon settle (exit handlers, GC of short-lived buffers)
  const events = { subscribers: subs.length, received: subs.reduce((s, x) => s + x.count(), 0), streamsOpenAtEnd: subs.filter((s) => s.open()).length };
  for (const s of subs) s.close();
  dropIdleConnections();
  await new Promise((r) => setTimeout(r, 500));
  const after = usage(t.pid);
  const leftList = await request(t.socket, 'GET', `/v1.24/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: [`berth-load=${label}`] }))}`);
  const left: Record<string, number> = { containers: leftList.json().length, ...(t.inventory ? await t.inventory() : {}) };
  return {
    clients,
    seconds,
    iterations,
    drainMs,
    errors,
    firstErrors,
    ms: Object.fromEntries(OPS.map((o) => [o, { n: times[o].length, p50: round(pct(times[o], 50)), p99: round(pct(times[o], 99)), max: round(Math.max(0, ...times[o])) }])) as RunResult['ms'],
    events,
    left,
    daemon: { before, peakRssMB: peak, after },
  };
}


/** berth's objects in containerd and its FIFOs: what a load run must leave as it found (snapshots over `baseSnapshots`). */
export async function berthInventory(ctr: Containerd, baseSnapshots: number, fifoDir: string): Promise<Record<string, number>> {
  return {
    containerdContainers: (await ctr.containers.List({ filters: [] })).containers.length,
    tasks: (await ctr.tasks.List({ filter: '' })).tasks.length,
    snapshots: (await listSnapshots(ctr)).length - baseSnapshots,
    leases: (await ctr.leases.List({ filters: [] })).leases.length,
    // the FIFO pool (.pool) is berth's reserve of ready FIFOs, not a leak
    fifos: fs.existsSync(fifoDir) ? fs.readdirSync(fifoDir).filter((f) => f !== '.pool').length : 0,
  };
}
