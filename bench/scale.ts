// Scale benchmark (a script, not a test; issue 20, goals 4 and 5): N running containers (`sleep`), through berthd in
// a process of its own on a private containerd, and through the reference engine (REF_SOCK, default
// /work/ref/docker.sock; its dockerd's RSS from REF_PIDFILE) with the same N where it answers:
// - RSS of the daemon idle with no container, and with N running (KB per container) 3, 10 and 30 s after the last start;
// - `docker ps` (the CLI, wall time, median of 10) beside `docker version` (the CLI's own floor: one small round
//   trip), and GET /containers/json (median of 20);
// - `docker stats --no-stream` of all of them (the CLI, median of 3);
// - a `die` to 100 GET /events subscribers (in another process): from the process's exit (containerd's exited_at,
//   which both daemons report as State.FinishedAt) to each subscriber's receipt, median and max over 100, median
//   over 5 kills; split into exit → the daemon's die (the event's timeNano) and that → receipt; and, for
//   comparison with earlier runs, from the kill request;
// - berthd's start-up over them (SIGTERM, start again: to the first answered /_ping and to a /containers/json that
//   lists every one running, which needs every log capture re-attached), median of 3.
// Run: npm run bench:scale [N] (default 200: on a 2-core machine shared with others; 1000 holds too, slowly);
// SCALE_REF=0 leaves the reference out. SCALE_INSPECT=1 starts berthd with its inspector and adds, with N running,
// its RSS after a full GC and the main thread's heap figures; SCALE_HEAPSNAPSHOT=FILE also writes a heap snapshot
// there. The containers are removed through berthd's API (8 at a time, as they were made) before it stops, then
// whatever is left in its containerd namespace directly.
// SCALE_CPUPROF=DIR writes a CPU profile of each start-up over them there; SCALE_STARTUPS=K measures K start-ups (3;
// 0 leaves them out, for a run at 1,000 that must hold the bench lock less long). SCALE_HOLD=FILE writes the daemon's pid
// and socket there once the N run, and waits until the file is removed.
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket = require('ws');
import { Containerd } from '../src/containerd/client';
import { subscribeTaskEvents } from '../src/containerd/events';
import { request } from '../test/helpers/berth';
import { cannedServer, ping, pool } from './canned-engine';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { berthdNodeFlags, berthdScript, removeScratch, stopBerthd } from './scratch';
import { dieLineOf, dieSummary, killsToSubscribers, nowNs, plainFanout } from './die-fanout';

const ROOT = path.resolve(__dirname, '../..');
const REF_SOCK = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const REF_PIDFILE = process.env.REF_PIDFILE ?? '/work/ref/docker.pid';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const r1 = (x: number) => +x.toFixed(1);
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

const rssKB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

function cli(sock: string, args: string[], out?: (stdout: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn('docker', args, { env: { ...process.env, DOCKER_HOST: `unix://${sock}` }, stdio: ['ignore', out ? 'pipe' : 'ignore', 'pipe'] });
    let err = '';
    let text = '';
    c.stderr!.on('data', (d: Buffer) => (err += d));
    c.stdout?.on('data', (d: Buffer) => (text += d));
    c.on('close', (code) => {
      if (code !== 0) return reject(new Error(`docker ${args.join(' ')}: ${code} ${err}`));
      const t = ms(t0);
      out?.(text);
      resolve(t);
    });
  });
}

/**
 * Rows of `docker stats --no-stream` the CLI gave up on: it waits 2 s for each container's first sample, then shows
 * "--" in its place (so the command's time alone cannot tell a slow daemon past 2 s from a fast one).
 */
const timedOutRows = (text: string) => text.split('\n').filter((l) => / -- /.test(l)).length;

/** berthd's inspector (SCALE_INSPECT=1): its URL from the stderr berthd printed it on. */
class Inspector {
  private url?: string;
  private seq = 0;

  constructor(child: ChildProcess) {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      this.url ??= /Debugger listening on (ws:\/\/\S+)/.exec(err)?.[1];
    });
  }

  /** Sends each method in turn and gives their results; chunks of a heap snapshot go to `chunk`. */
  async call(calls: { method: string; params?: unknown }[], chunk?: (s: string) => void): Promise<unknown[]> {
    if (!this.url) throw new Error('berthd has no inspector');
    const ws = new WebSocket(this.url);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const out: unknown[] = [];
    try {
      for (const c of calls) {
        const id = ++this.seq;
        out.push(
          await new Promise((resolve, reject) => {
            const on = (m: WebSocket.RawData) => {
              const msg = JSON.parse(String(m));
              if (msg.method === 'HeapProfiler.addHeapSnapshotChunk') chunk?.(msg.params.chunk);
              if (msg.id !== id) return;
              ws.off('message', on);
              if (msg.error) reject(new Error(JSON.stringify(msg.error)));
              else resolve(msg.result);
            };
            ws.on('message', on);
            ws.send(JSON.stringify({ id, method: c.method, params: c.params }));
          }),
        );
      }
    } finally {
      ws.close();
    }
    return out;
  }

  /** RSS after a full GC, and the main thread's heap (MB); a heap snapshot written to `file` when given. */
  async memory(pid: number, file?: string): Promise<Record<string, number>> {
    await this.call([{ method: 'HeapProfiler.collectGarbage' }]);
    await new Promise((r) => setTimeout(r, 1000));
    const [res] = (await this.call([{ method: 'Runtime.evaluate', params: { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true } }])) as { result: { value: string } }[];
    const mu = JSON.parse(res.result.value) as Record<string, number>;
    const out = { rssAfterGcMB: r1(rssKB(pid) / 1024), heapUsedMB: r1(mu.heapUsed / 1048576), heapTotalMB: r1(mu.heapTotal / 1048576), externalMB: r1(mu.external / 1048576), arrayBuffersMB: r1(mu.arrayBuffers / 1048576) };
    if (file) {
      const fd = fs.openSync(file, 'w');
      try {
        await this.call([{ method: 'HeapProfiler.enable' }, { method: 'HeapProfiler.takeHeapSnapshot', params: { reportProgress: false } }], (c) => fs.writeSync(fd, c));
      } finally {
        fs.closeSync(fd);
      }
    }
    return out;
  }
}

interface Side {
  name: string;
  sock: string;
  pid: () => number;
  /** When a plain gRPC subscriber of the same containerd received the container's /tasks/exit (wall-clock ns). */
  exitEventAt?: (id: string) => bigint | undefined;
  /** RSS after a full GC and heap figures (berth with SCALE_INSPECT=1). */
  memory?: () => Promise<Record<string, number>>;
}

async function measure(side: Side, dir: string, n: number, start: () => Promise<string>, kill: (id: string) => Promise<void>): Promise<Record<string, unknown>> {
  const idle = rssKB(side.pid());
  const ids: string[] = [];
  const t0 = process.hrtime.bigint();
  await pool(n, 8, async () => {
    ids.push(await start());
  });
  const startAllS = ms(t0) / 1000;
  // RSS 3 s after the last start, then 10 s and 30 s after it: what V8's memory reducer (it runs once allocation
  // has been quiet for a while) gives back of the starts' garbage without a forced GC
  const settle = async (atMs: number) => {
    await new Promise((r) => setTimeout(r, Math.max(0, atMs - ms(tEnd))));
    return rssKB(side.pid());
  };
  const tEnd = process.hrtime.bigint();
  const loaded = await settle(3000);
  const loaded10 = await settle(10_000);
  const loaded30 = await settle(30_000);
  const memory = await side.memory?.();
  const hold = process.env.SCALE_HOLD;
  if (hold) {
    // (a look at the loaded daemon from outside: the bench goes on once the file is gone)
    fs.writeFileSync(hold, `${side.name} ${side.pid()} ${side.sock}\n`);
    while (fs.existsSync(hold)) await new Promise((r) => setTimeout(r, 500));
  }
  // the CLI's own floors, interleaved with `docker ps`: `docker version` (one small round trip), and `docker ps`
  // against a bare server answering with the daemon's own list of N (the CLI's cost of N rows)
  const canned = await cannedServer(dir, side.sock);
  try {
    return await measureLoaded(side, dir, n, ids, canned, kill, { idle, loaded, loaded10, loaded30, memory, startAllS });
  } finally {
    canned.stop();
  }
}

/** The measures with N running, beside the canned server's floors. */
async function measureLoaded(
  side: Side,
  dir: string,
  n: number,
  ids: string[],
  canned: { sock: string },
  kill: (id: string) => Promise<void>,
  before: { idle: number; loaded: number; loaded10: number; loaded30: number; memory?: Record<string, number>; startAllS: number },
): Promise<Record<string, unknown>> {
  const { idle, loaded, loaded10, loaded30, memory, startAllS } = before;
  const ps: number[] = [];
  const floor: number[] = [];
  const psFloor: number[] = [];
  for (let i = 0; i < 10; i++) {
    ps.push(await cli(side.sock, ['ps']));
    floor.push(await cli(side.sock, ['version']));
    psFloor.push(await cli(canned.sock, ['ps']));
  }
  // GET /containers/json at the API (a plain Node client: the request, the answer's bytes, no parse), interleaved
  // with the same request to the canned server (what the round trip and the transfer alone cost)
  const list: number[] = [];
  const listCanned: number[] = [];
  let listBytes = 0;
  for (let i = 0; i < 20; i++) {
    let t = process.hrtime.bigint();
    const l = await request(side.sock, 'GET', '/v1.24/containers/json');
    list.push(ms(t));
    if (l.json().length < n) throw new Error(`${side.name}: ${l.json().length} listed`);
    listBytes = l.body.length;
    t = process.hrtime.bigint();
    await request(canned.sock, 'GET', '/v1.24/containers/json');
    listCanned.push(ms(t));
  }
  // `docker stats --no-stream` against the daemon, interleaved with the same against the canned server (each
  // container's sample answered at once: the CLI's own floor); the rows the CLI gave up on, in the daemon's runs
  // every container inspected at once (one connection each: up to 300), wall time
  const some = ids.slice(0, 300);
  const ti = process.hrtime.bigint();
  await Promise.all(some.map(async (id) => {
    const r = await request(side.sock, 'GET', `/v1.24/containers/${id}/json`);
    if (r.status !== 200) throw new Error(`${side.name}: inspect ${r.status}`);
  }));
  const inspectParallel = ms(ti);
  const stats: number[] = [];
  const statsFloor: number[] = [];
  let statsTimedOut = 0;
  for (let i = 0; i < 3; i++) {
    stats.push(await cli(side.sock, ['stats', '--no-stream'], (t) => (statsTimedOut = Math.max(statsTimedOut, timedOutRows(t)))));
    statsFloor.push(await cli(canned.sock, ['stats', '--no-stream']));
  }
  const die = await killsToSubscribers({ name: side.name, sock: side.sock, ids, kills: 5, kill, exitEventAt: side.exitEventAt });
  // the daemon's last die event as its subscribers got it: the plain fan-out writes the same line
  const plain = await plainFanout(dir, await dieLineOf(side.sock, die.lastKilled, die.firstKillNs));
  return {
    containers: n,
    idleRssMB: r1(idle / 1024),
    rssMB: r1(loaded / 1024),
    kbPerContainer: r1((loaded - idle) / n),
    rssAfterLastStartMB: { s3: r1(loaded / 1024), s10: r1(loaded10 / 1024), s30: r1(loaded30 / 1024) },
    kbPerContainerAt30s: r1((loaded30 - idle) / n),
    ...(memory ? { withN: memory } : {}),
    startAllS: r1(startAllS),
    dockerPsMs: r1(median(ps)),
    dockerVersionMs: r1(median(floor)),
    // the limit for dockerPsMs: the CLI's `docker ps` of the same N rows from a server that answers at once
    dockerPsAgainstCannedListMs: r1(median(psFloor)),
    // the API alone: berth's (or the reference's) GET /containers/json, and the same answer from the canned server
    listMs: r1(median(list)),
    listAgainstCannedMs: r1(median(listCanned)),
    listKB: r1(listBytes / 1024),
    [`inspect${some.length}AtOnceMs`]: r1(inspectParallel),
    dockerStatsNoStreamMs: r1(median(stats)),
    // the limit for dockerStatsNoStreamMs: the same command against a server answering every sample at once
    dockerStatsAgainstCannedSamplesMs: r1(median(statsFloor)),
    // rows shown as "--" (no sample within the CLI's 2 s), the most in one run
    dockerStatsRowsTimedOut: statsTimedOut,
    dieTo100SubscribersMs: dieSummary(die.samples, plain),
  };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 200);
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-scale-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-scale-${process.pid}`;
  const bridge = { name: 'bbscale0', subnet: '10.253.243.0/24' };
  // the bundle bin/berthd runs; tsc's modules when each start-up is profiled (SCALE_CPUPROF, summed by file)
  const args = [...berthdNodeFlags(ROOT), berthdScript(ROOT, !!process.env.SCALE_CPUPROF), '-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', ns, '--cgroup-parent', `/${ns}`, '--bridge-name', bridge.name, '--bridge-subnet', bridge.subnet, '--log-level', 'error'];
  const inspect = process.env.SCALE_INSPECT === '1' || !!process.env.SCALE_HEAPSNAPSHOT;
  let berthd: ChildProcess = spawn(process.execPath, inspect ? ['--inspect=127.0.0.1:0', ...args] : args, { stdio: ['ignore', 'ignore', inspect ? 'pipe' : 'ignore'] });
  const inspector = inspect ? new Inspector(berthd) : undefined;
  const berthIds: string[] = [];
  const ctr = new Containerd({ address: ctd.address, namespace: ns });
  const refIds: string[] = [];
  const withRef = process.env.SCALE_REF !== '0' && (await ping(REF_SOCK)) && fs.existsSync(REF_PIDFILE);
  const up = async () => {
    while (!(await ping(socket))) {
      if (berthd.exitCode !== null) throw new Error('berthd exited');
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    await up();
    await new Promise((r) => setTimeout(r, 3000));
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const run = (sock: string) => async () => {
      const c = await request(sock, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sleep', '3600'], HostConfig: { NetworkMode: 'none' } } });
      const id = c.json().Id;
      if (!id) throw new Error(`create: ${c.text}`);
      const s = await request(sock, 'POST', `/v1.24/containers/${id}/start`);
      if (s.status !== 204) throw new Error(`start: ${s.text}`);
      return id;
    };
    const kill = (sock: string) => async (id: string) => {
      await request(sock, 'POST', `/v1.24/containers/${id}/kill`);
    };
    const exitEvents = new Map<string, bigint>();
    const plain = subscribeTaskEvents(ctr, {
      event: (topic, payload) => {
        if (topic === '/tasks/exit') exitEvents.set(payload<{ container_id: string }>()!.container_id, nowNs());
      },
      closed: () => undefined,
    });
    const runBerth = run(socket);
    const berth = await measure(
      { name: 'berth', sock: socket, pid: () => berthd.pid!, exitEventAt: (id) => exitEvents.get(id), memory: inspector && (() => inspector.memory(berthd.pid!, process.env.SCALE_HEAPSNAPSHOT)) },
      dir,
      n,
      async () => {
        const id = await runBerth();
        berthIds.push(id);
        return id;
      },
      kill(socket),
    );
    plain.cancel();
    // start-up over them
    const startup: number[] = [];
    const listed: number[] = [];
    for (let i = 0; i < Number(process.env.SCALE_STARTUPS ?? 3); i++) {
      berthd.kill('SIGTERM');
      await new Promise((r) => berthd.once('exit', r));
      const t0 = process.hrtime.bigint();
      // SCALE_CPUPROF=DIR: a CPU profile of each start-up (written at its SIGTERM)
      const prof = process.env.SCALE_CPUPROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SCALE_CPUPROF}`] : [];
      berthd = spawn(process.execPath, [...prof, ...args], { stdio: 'ignore' });
      await up();
      startup.push(ms(t0));
      for (;;) {
        const l = (await request(socket, 'GET', '/v1.24/containers/json')).json();
        if (l.length >= n - 5) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      listed.push(ms(t0));
    }
    if (startup.length) Object.assign(berth, { startupToPingMs: r1(median(startup)), startupToListMs: r1(median(listed)) });
    let ref: Record<string, unknown> | string = process.env.SCALE_REF === '0' ? 'left out (SCALE_REF=0)' : 'not answering';
    if (withRef) {
      const refPid = () => Number(fs.readFileSync(REF_PIDFILE, 'utf8').trim());
      const runRef = run(REF_SOCK);
      ref = await measure({ name: 'reference', sock: REF_SOCK, pid: refPid }, dir, n, async () => {
        const id = await runRef();
        refIds.push(id);
        return id;
      }, kill(REF_SOCK));
    }
    console.log(JSON.stringify({ load: os.loadavg().map(r1), berth, reference: ref, goals: { rssMB: '<= 150 at 1000', dockerPsMs: '<= 20', dockerStatsNoStreamMs: '<= 2000', dieFromExitMedianMs: '<= 5', startupMs: '<= 3000', idleRssMB: '<= 60' } }, null, 2));
  } finally {
    // Through berthd, as a user would (its sandboxes' netns, FIFOs and records go with them), then what is left.
    if (berthd.exitCode === null) {
      await pool(berthIds.length, 8, async (i) => {
        await request(socket, 'DELETE', `/v1.24/containers/${berthIds[i]}?force=1`).catch(() => undefined);
      });
    }
    await stopBerthd(berthd);
    await pool(refIds.length, 8, async (i) => {
      await request(REF_SOCK, 'DELETE', `/v1.24/containers/${refIds[i]}?force=1`).catch(() => undefined);
    });
    await cleanupNamespace(ctr);
    await removeScratch({ ctdPid: ctd.pid, bridges: [bridge], dir });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
