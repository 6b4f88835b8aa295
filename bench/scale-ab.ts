// An A/B of berthd builds over the same N running containers (a script, not a test; issue 20, goal 4): N `sleep`
// containers are started once through the first build's berthd on a private containerd; then, round by round, each
// build's berthd is started over them in turn (SIGTERM, start again on the same data root: every container
// re-attached) and measured: `docker stats --no-stream` of all N interleaved with the same command against a canned
// server answering each container's sample at once (the CLI's floor, as bench:scale's), GET /containers/json beside
// the canned list, and berthd's CPU by thread during the stats runs.
// Run: node dist/bench/scale-ab.js N ROOT_A ROOT_B ... (each ROOT a copy of a built worktree's bin/, dist/, proto/,
// src/containerd/gen/protos.json and package.json with its node_modules linked, so that a rebuild does not change it
// mid-run; berthd is started as bin/berthd starts it, from the bundle, or tsc's modules with AB_CPUPROF). AB_ROUNDS (3), AB_STATS (2 per round and build),
// AB_CPUPROF=DIR (a --cpu-prof of each berthd, written at its SIGTERM), AB_PROFILE=DIR (berthd started with its
// inspector; after the timed runs, one more `docker stats` (with AB_WHAT=inspect alone: 300 inspects at once) with
// the main thread's CPU profile, 250 µs samples,
// written there as <build>-<round>.cpuprofile), AB_HOLD=FILE (the socket of the first
// build's berthd written there once the N run; the bench waits until the file is removed).
// AB_WHAT (stats): what is measured, a comma list of `stats` (above), `die` (AB_KILLS containers, 3 per round and
// build, killed one at a time with 100 GET /events subscribers listening, as bench:scale measures its die: from the
// exit to the receipts, split at the die's timeNano; beside containerd's own delivery of /tasks/exit to a plain gRPC
// subscriber) and `inspect` (AB_INSPECT times, 3 per round and build, 300 GET /containers/{id}/json at once, a
// connection each, wall time; berthd's main-thread CPU for them). AB_NODE_FLAGS: more node flags for berthd
// (e.g. `--cpu-prof-interval 100` with AB_CPUPROF).
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket = require('ws');
import { Containerd } from '../src/containerd/client';
import { request } from '../test/helpers/berth';
import { cannedServer, ping, pool } from './canned-engine';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { threadCpuMs } from './cpu-census';
import { berthdNodeFlags, berthdScript, removeScratch, stopBerthd } from './scratch';
import { dieSummary, killsToSubscribers, nowNs, type DieSample } from './die-fanout';
import { subscribeTaskEvents } from '../src/containerd/events';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const r1 = (x: number) => +x.toFixed(1);
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

function cli(sock: string, args: string[]): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn('docker', args, { env: { ...process.env, DOCKER_HOST: `unix://${sock}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let out = '';
    c.stderr!.on('data', (d: Buffer) => (err += d));
    c.stdout!.on('data', (d: Buffer) => (out += d));
    c.on('close', (code) => (code === 0 ? resolve({ ms: ms(t0), out }) : reject(new Error(`docker ${args.join(' ')}: ${code} ${err}`))));
  });
}

/** The inspector's URL from the stderr berthd prints it on. */
function inspectorUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /Debugger listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
  });
}

/** `fn` run with berthd's main thread profiled; the profile written to `file`. */
async function profiled(url: string, file: string, fn: () => Promise<unknown>): Promise<void> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let seq = 0;
  const call = (method: string, params?: unknown) =>
    new Promise<any>((resolve, reject) => {
      const id = ++seq;
      const on = (m: WebSocket.RawData) => {
        const msg = JSON.parse(String(m));
        if (msg.id !== id) return;
        ws.off('message', on);
        if (msg.error) reject(new Error(JSON.stringify(msg.error)));
        else resolve(msg.result);
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: 250 });
    await call('Profiler.start');
    await fn();
    const { profile } = await call('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
  } finally {
    ws.close();
  }
}

async function main(): Promise<void> {
  const [nArg, ...roots] = process.argv.slice(2);
  const n = Number(nArg ?? 1000);
  if (!roots.length) throw new Error('usage: scale-ab N ROOT_A [ROOT_B ...]');
  const rounds = Number(process.env.AB_ROUNDS ?? 3);
  const perRound = Number(process.env.AB_STATS ?? 2);
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-scale-ab-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-scale-ab-${process.pid}`;
  const bridge = { name: 'bbscaleab0', subnet: '10.253.244.0/24' };
  const daemonArgs = ['-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', ns, '--cgroup-parent', `/${ns}`, '--bridge-name', bridge.name, '--bridge-subnet', bridge.subnet, '--log-level', 'error'];
  const prof = process.env.AB_CPUPROF;
  const profileDir = process.env.AB_PROFILE;
  let inspector: Promise<string> | undefined;
  const startBerthd = (root: string, tag: string) => {
    const flags = [...berthdNodeFlags(root), ...(process.env.AB_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${path.join(prof, tag)}`] : []), ...(profileDir ? ['--inspect=127.0.0.1:0'] : [])];
    const child = spawn(process.execPath, [...flags, berthdScript(root, !!prof), ...daemonArgs], { stdio: ['ignore', 'ignore', profileDir ? 'pipe' : 'inherit'] });
    if (profileDir) {
      inspector = inspectorUrl(child);
      child.stderr!.pipe(process.stderr);
    }
    return child;
  };
  let berthd: ChildProcess = startBerthd(roots[0], 'start');
  const ctr = new Containerd({ address: ctd.address, namespace: ns });
  const ids: string[] = [];
  let canned: { sock: string; stop(): void } | undefined;
  const up = async () => {
    while (!(await ping(socket))) {
      if (berthd.exitCode !== null) throw new Error('berthd exited');
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const what = new Set((process.env.AB_WHAT ?? 'stats').split(','));
  const kills = Number(process.env.AB_KILLS ?? 3);
  const inspects = Number(process.env.AB_INSPECT ?? 3);
  const results: Record<string, { stats: number[]; canned: number[]; list: number[]; timedOut: number; cpuPerStats: { main: number[]; others: Record<string, number[]> }; die: DieSample[]; inspect: number[]; inspectCpu: number[] }> = {};
  // containerd's own delivery of each /tasks/exit to a plain gRPC subscriber (the limit for exit → die)
  const exitEvents = new Map<string, bigint>();
  let plain: { cancel(): void } | undefined;
  let killed = 0;
  try {
    await up();
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const t0 = process.hrtime.bigint();
    await pool(n, 8, async () => {
      const c = await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sleep', '36000'], HostConfig: { NetworkMode: 'none' } } });
      const id = c.json().Id;
      if (!id) throw new Error(`create: ${c.text}`);
      ids.push(id);
      const s = await request(socket, 'POST', `/v1.24/containers/${id}/start`);
      if (s.status !== 204) throw new Error(`start: ${s.text}`);
    });
    console.error(`${n} started in ${r1(ms(t0) / 1000)} s (load ${os.loadavg().map(r1).join(' ')})`);
    // the canned server, with the first build's answers
    canned = await cannedServer(dir, socket);
    const cs = canned.sock;
    if (what.has('die'))
      plain = subscribeTaskEvents(ctr, {
        event: (topic, payload) => {
          if (topic === '/tasks/exit') exitEvents.set(payload<{ container_id: string }>()!.container_id, nowNs());
        },
        closed: () => undefined,
      });
    if (process.env.AB_HOLD) {
      fs.writeFileSync(process.env.AB_HOLD, `${berthd.pid} ${socket} ${cs}\n`);
      while (fs.existsSync(process.env.AB_HOLD)) await new Promise((r) => setTimeout(r, 500));
    }
    for (let round = 0; round < rounds; round++) {
      for (const [b, root] of roots.entries()) {
        const tag = `${b}:${path.basename(root)}`;
        const res = (results[tag] ??= { stats: [], canned: [], list: [], timedOut: 0, cpuPerStats: { main: [], others: {} }, die: [], inspect: [], inspectCpu: [] });
        await stopBerthd(berthd);
        berthd = startBerthd(root, `${b}-${round}`);
        await up();
        for (;;) {
          const l = (await request(socket, 'GET', '/v1.24/containers/json')).json();
          if (l.length >= n - killed) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await new Promise((r) => setTimeout(r, 2000));
        if (what.has('stats')) await cli(socket, ['stats', '--no-stream']); // (warm: the first answers' code paths)
        for (let i = 0; i < 10; i++) {
          const t = process.hrtime.bigint();
          await request(socket, 'GET', '/v1.24/containers/json');
          res.list.push(ms(t));
        }
        if (what.has('inspect')) {
          const some = ids.slice(0, 300);
          const all = () => Promise.all(some.map(async (id) => {
            const r = await request(socket, 'GET', `/v1.24/containers/${id}/json`);
            if (r.status !== 200) throw new Error(`${tag}: inspect ${r.status}`);
          }));
          await all(); // (warm)
          for (let i = 0; i < inspects; i++) {
            const before = threadCpuMs(berthd.pid!);
            const t = process.hrtime.bigint();
            await all();
            res.inspect.push(ms(t));
            res.inspectCpu.push(threadCpuMs(berthd.pid!).main - before.main);
          }
        }
        if (what.has('die')) {
          // (containers from the end of the list: the inspects take the first 300)
          const d = await killsToSubscribers({ name: tag, sock: socket, ids, kills, kill: async (id) => void (await request(socket, 'POST', `/v1.24/containers/${id}/kill`)), exitEventAt: (id) => exitEvents.get(id) });
          killed += kills;
          res.die.push(...d.samples);
        }
        for (let i = 0; i < (what.has('stats') ? perRound : 0); i++) {
          const before = threadCpuMs(berthd.pid!);
          const s = await cli(socket, ['stats', '--no-stream']);
          const after = threadCpuMs(berthd.pid!);
          res.stats.push(s.ms);
          res.timedOut = Math.max(res.timedOut, s.out.split('\n').filter((l) => / -- /.test(l)).length);
          res.cpuPerStats.main.push(after.main - before.main);
          for (const [k, v] of Object.entries(after.byName)) (res.cpuPerStats.others[k] ??= []).push(v - (before.byName[k] ?? 0));
          res.canned.push((await cli(cs, ['stats', '--no-stream'])).ms);
        }
        if (profileDir) {
          fs.mkdirSync(profileDir, { recursive: true });
          // (the inspects' when only they are measured)
          const some = ids.slice(0, 300);
          const profiledRun = what.has('stats') || !what.has('inspect') ? () => cli(socket, ['stats', '--no-stream']) : () => Promise.all(some.map((id) => request(socket, 'GET', `/v1.24/containers/${id}/json`)));
          await profiled(await inspector!, path.join(profileDir, `${b}-${round}.cpuprofile`), profiledRun);
        }
        console.error(`round ${round} ${tag}: stats ${res.stats.slice(-perRound).map(r1).join(' ')} canned ${res.canned.slice(-perRound).map(r1).join(' ')} inspect ${res.inspect.slice(-inspects).map(r1).join(' ')} die ${res.die.slice(-kills).map((d) => `${r1(d.fromExit)} (${r1(d.exitToDie)}+${r1(d.dieToReceipt)}, ctd ${r1(d.exitToEvent ?? NaN)})`).join(' ')} load ${os.loadavg().map(r1).join(' ')}`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [tag, r] of Object.entries(results)) {
      out[tag] = {
        dockerStatsMs: r1(median(r.stats)),
        cannedMs: r1(median(r.canned)),
        overCannedMs: r1(median(r.stats.map((s, i) => s - r.canned[i]))),
        runs: r.stats.map(r1),
        cannedRuns: r.canned.map(r1),
        timedOutRows: r.timedOut,
        listMs: r1(median(r.list)),
        cpuMsPerStats: { main: r1(median(r.cpuPerStats.main)), ...Object.fromEntries(Object.entries(r.cpuPerStats.others).map(([k, v]) => [k, r1(median(v))])) },
        ...(r.inspect.length ? { inspect300AtOnceMs: r1(median(r.inspect)), inspectRuns: r.inspect.map(r1), inspectMainCpuMs: r1(median(r.inspectCpu)) } : {}),
        ...(r.die.length ? { dieTo100SubscribersMs: dieSummary(r.die), dieFromExitRuns: r.die.map((d) => r1(d.fromExit)) } : {}),
      };
    }
    console.log(JSON.stringify({ n, load: os.loadavg().map(r1), builds: out }, null, 2));
  } finally {
    plain?.cancel();
    canned?.stop();
    if (berthd.exitCode === null) {
      await pool(ids.length, 8, async (i) => {
        await request(socket, 'DELETE', `/v1.24/containers/${ids[i]}?force=1`).catch(() => undefined);
      });
    }
    await stopBerthd(berthd);
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
