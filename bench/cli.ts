// CLI benchmark (a script, not a test), in one interleaved run: the docker CLI's `docker run --rm busybox true`
// through berth (bin/berthd in a process of its own, as in production), against its limit, `ctr run --rm` of the
// same image on the same containerd, and against the reference engine (REF_SOCK, default /work/ref/docker.sock,
// which needs busybox:latest; left out when it does not answer).
// (a) one run at a time, NetworkMode none and the default bridge, interleaved samples (issue 20, goal 2);
// (b) 40 runs, 8 at a time, none (goal 3), in interleaved rounds (3 by default; medians);
// the CLI floor (bench/cli-floor.ts: a canned engine answering the CLI's requests at once) runs interleaved with both,
// so `berth − floor` (what berth adds to the CLI's own cost) is set against ctr's time;
// per phase, from containerd's own events for each run (their timestamps): berth's and ctr's medians of client start →
// /containers/create → /tasks/create → /tasks/start → /tasks/exit → /tasks/delete → last of /snapshot/remove and
// /containers/delete → the client's exit;
// berth's CPU time per run (its process's and its command helper's, with what they ran; the mean over the samples, the
// clock ticks being 10 ms) is reported too: steadier than wall time on a shared machine.
// BERTH_BASE_DIST=/path/to/an/older/dist adds a second berthd built from it (another namespace, same containerd),
// interleaved with the first: before/after figures from one run. BENCH_KINDS=berthNone,baseNone,ctrRun (say) runs
// only those kinds (of berthNone, berthBridge, baseNone, baseBridge, ctrRun, ctrSeccomp, refNone, refBridge,
// cliFloor; the 40 runs 8
// at a time follow: berth, base, ctrRun, ctrSeccomp, ref, cliFloor; 0 rounds skips them). BENCH_TRACE=<file> preloads bench/trace.ts into the
// first berthd: a timeline of its requests, containerd calls, commands and fsyncs (bench/trace-summary.ts sums it).
// BENCH_CPUPROF=<dir> runs the first berthd with --cpu-prof into that folder (written when it stops; trace-summary.ts
// --cpuprof sums it by origin; with BENCH_TRACE, the runs' part is in the JSON; BENCH_CPUPROF_US: the interval).
// BENCH_BASE_NODE_FLAGS='--flag ...' starts the base berthd with those node flags instead of bin/berthd's (an A/B of
// node's flags: BERTH_BASE_DIST=dist).
// As root with cgroup v1, the CPU of every run is counted exactly by component (bench/cpu-census.ts startAccounting):
// the client (docker CLI or ctr), berthd's main thread, its other threads, its helpers, containerd with its shims
// and runc, and the container (`cpuMsPerRun`, `parallel40x8CpuMsPerRun`; a BERTH_BASE_DIST berthd is started by
// this process and counts as client: compare the two berthds by berthCpuMsPerRun and baseCpuMsPerRun).
// Run: npm run bench:cli [samples] [rounds]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Containerd } from '../src/containerd/client';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { startCliFloor } from './cli-floor';
import { medianCensus, startAccounting } from './cpu-census';
import { profileByOrigin, readTrace, runTimeline, traceClock } from './trace-summary';
import { berthdNodeFlags, berthdScript, removeScratch, stopBerthd } from './scratch';
import { ping } from './canned-engine';

const ROOT = path.resolve(__dirname, '../..');
const REF_SOCK = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const median = (xs: number[] | undefined) => (xs ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN : NaN);
const r1 = (x: number) => +x.toFixed(1);
const r2 = (x: number) => +x.toFixed(2);

/**
 * CPU time of a process and of its helpers, in ms: its utime + stime, its reaped children's, and the same for each
 * child still running (berthd's command helper, whose reaped children are the `ip`, `mkfifo` and CNI plugins it ran).
 */
function cpuMs(pid: number): number {
  let f: string;
  try {
    f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0; // (a child gone meanwhile: its time is in its parent's reaped children's from then on)
  }
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  const own = ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  let children = 0;
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`))
      for (const c of fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) children += cpuMs(Number(c));
  } catch {
    /* gone meanwhile */
  }
  return own + children;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs a command to its end; its time in ms (a failure is an error: a benchmark of failing runs is no benchmark). */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${out}`))));
  });
}

/** Wall-clock ms with sub-ms precision (comparable with containerd's event timestamps). */
const wallMs = () => performance.timeOrigin + performance.now();

const PHASES = ['toContainerCreate', 'toTaskCreate', 'toTaskStart', 'toExit', 'toTaskDelete', 'toRemoved', 'toClientExit'] as const;

/**
 * containerd's events of a namespace, each with the container it is about (the first berth id or ctr bench name in
 * its payload) and containerd's timestamp; `phases` splits one client run [t0, t1] by them.
 */
function watchContainerd(ctr: Containerd, namespaces: string[]) {
  const seen: { topic: string; id: string; t: number }[] = [];
  const stream = ctr.raw.events.Subscribe({ filters: namespaces.map((n) => `namespace==${n}`) }, ctr.metadata());
  stream.on('data', (env: { topic: string; timestamp?: { seconds?: string | number; nanos?: number }; event: { value: Buffer } }) => {
    const id = /[0-9a-f]{64}|ctrbench\d+x\d+/.exec(env.event.value.toString('latin1'))?.[0] ?? '';
    seen.push({ topic: env.topic, id, t: Number(env.timestamp?.seconds ?? 0) * 1000 + (env.timestamp?.nanos ?? 0) / 1e6 });
  });
  stream.on('error', () => undefined);
  return {
    close: () => stream.cancel(),
    phases(t0: number, t1: number): Record<(typeof PHASES)[number], number> | undefined {
      const within = seen.filter((e) => e.t >= t0 - 1 && e.t <= t1 + 1);
      const id = within.find((e) => e.topic === '/containers/create')?.id;
      const at = (topic: string) => within.find((e) => e.id === id && e.topic === topic)?.t;
      const [cc, tc, ts, te, td] = ['/containers/create', '/tasks/create', '/tasks/start', '/tasks/exit', '/tasks/delete'].map(at);
      const removed = Math.max(at('/snapshot/remove') ?? -Infinity, at('/containers/delete') ?? -Infinity);
      if (!id || [cc, tc, ts, te, td].some((x) => x === undefined) || !Number.isFinite(removed)) return undefined;
      return { toContainerCreate: cc! - t0, toTaskCreate: tc! - cc!, toTaskStart: ts! - tc!, toExit: te! - ts!, toTaskDelete: td! - te!, toRemoved: removed - td!, toClientExit: t1 - removed };
    },
  };
}

/** `total` runs of `one`, `parallel` at a time: the wall time in ms. */
async function batch(total: number, parallel: number, one: () => Promise<number>): Promise<number> {
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < total) await one();
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 15);
  const rounds = Number(process.argv[3] ?? 3);
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-cli-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-cli-${process.pid}`;
  const bridge = { name: 'bbcli0', subnet: '10.253.249.0/24' };
  const trace = process.env.BENCH_TRACE;
  const cpuProf = process.env.BENCH_CPUPROF;
  const startBerthd = (main: string, sock: string, name: string, b: typeof bridge, traced = false) =>
    spawn(process.execPath, [...(!traced && process.env.BENCH_BASE_NODE_FLAGS !== undefined ? process.env.BENCH_BASE_NODE_FLAGS.split(' ').filter(Boolean) : berthdNodeFlags(ROOT)), ...(traced && trace ? ['-r', path.join(ROOT, 'dist/bench/trace.js')] : []), ...(traced && cpuProf ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(cpuProf), ...(process.env.BENCH_CPUPROF_US ? ['--cpu-prof-interval', process.env.BENCH_CPUPROF_US] : [])] : []), main, '-H', `unix://${sock}`, '--data-root', path.join(dir, `data-${name}`), '--exec-root', path.join(dir, `exec-${name}`), '--containerd', ctd.address, '--namespace', name, '--cgroup-parent', `/${name}`, '--bridge-name', b.name, '--bridge-subnet', b.subnet, '--log-level', 'error'], { stdio: 'ignore', env: traced && trace ? { ...process.env, BERTH_TRACE: path.resolve(trace) } : process.env });
  // the bundle bin/berthd runs; tsc's modules for a trace (bench/trace.ts hooks them) or a profile summed by file
  const berthd = startBerthd(berthdScript(ROOT, !!trace || !!cpuProf), socket, ns, bridge, true);
  const ctr = new Containerd({ address: ctd.address, namespace: ns });
  const baseDist = process.env.BERTH_BASE_DIST;
  const baseSocket = path.join(dir, 'base.sock');
  const baseBridge = { name: 'bbcli1', subnet: '10.253.247.0/24' };
  // the older build's bundle when it has one, else its modules (a build from before dist/bundle)
  const baseMain = baseDist && (fs.existsSync(path.join(baseDist, 'bundle/berthd.js')) ? path.join(baseDist, 'bundle/berthd.js') : path.join(baseDist, 'src/main.js'));
  const base = baseMain ? startBerthd(baseMain, baseSocket, `${ns}-base`, baseBridge) : undefined;
  const cleanups: (() => Promise<void>)[] = [];
  // CPU per run by component (cpuacct groups: the clients, berthd with its helpers, containerd with its shims and runc)
  const windows: [number, number][] = []; // berthNone's runs on the wall clock (for the trace and the profile)
  const acct = startAccounting({ tag: String(process.pid), berthPid: () => berthd.pid, containers: `/${ns}` });
  if (acct) {
    acct.add('client', process.pid);
    acct.add('containerd', ctd.pid);
    if (berthd.pid) acct.add('berthd', berthd.pid);
  }
  try {
    for (const [p, sock] of [[berthd, socket], ...(base ? [[base, baseSocket] as const] : [])] as const) {
      while (!(await ping(sock))) {
        if (p.exitCode !== null) throw new Error('berthd exited');
        await new Promise((r) => setTimeout(r, 20));
      }
      await request(sock, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    }
    if (acct && berthd.pid) acct.add('berthd', berthd.pid); // (its helpers, started by now)
    const floor = await startCliFloor(path.join(dir, 'floor.sock'));
    const watch = watchContainerd(ctr, [ns, ...(base ? [`${ns}-base`] : [])]);
    cleanups.push(async () => {
      watch.close();
      await floor.close();
    });
    const withRef = await ping(REF_SOCK);
    const load0 = os.loadavg();
    const env = (sock: string) => ({ ...process.env, DOCKER_HOST: `unix://${sock}` });
    const docker = (sock: string, network: string) => () => timed('docker', ['run', '--rm', '--network', network, 'busybox', 'true'], env(sock));
    let n = 0;
    // ctr's default runtime (runc v2 shim), its own FIFOs copied to its stdio, as the CLI's attach copies them.
    const ctrRun = () => timed('ctr', ['-a', ctd.address, '-n', ns, 'run', '--rm', 'docker.io/library/busybox:latest', `ctrbench${process.pid}x${n++}`, '/bin/busybox', 'true']);
    // the same with containerd's default seccomp profile, as the engine's (and berth's) containers have one: runc
    // compiles and loads the filter at every create
    const ctrSeccomp = () => timed('ctr', ['-a', ctd.address, '-n', ns, 'run', '--rm', '--seccomp', 'docker.io/library/busybox:latest', `ctrbench${process.pid}x${n++}`, '/bin/busybox', 'true']);
    const kinds: Record<string, () => Promise<number>> = {
      berthNone: docker(socket, 'none'),
      berthBridge: docker(socket, 'bridge'),
      ...(base ? { baseNone: docker(baseSocket, 'none'), baseBridge: docker(baseSocket, 'bridge') } : {}),
      ctrRun,
      ctrSeccomp,
      ...(withRef ? { refNone: docker(REF_SOCK, 'none'), refBridge: docker(REF_SOCK, 'bridge') } : {}),
      cliFloor: docker(floor.socket, 'none'),
    };
    const only = process.env.BENCH_KINDS?.split(',');
    if (only) for (const k of Object.keys(kinds)) if (!only.includes(k)) delete kinds[k];
    // warm-up: one of each; a reference mode that fails (its docker0 gone, say) is left out and named in the report
    const refFailures: Record<string, string> = {};
    for (const [k, f] of Object.entries(kinds))
      await f().catch((err: Error) => {
        if (!k.startsWith('ref')) throw err;
        refFailures[k] = err.message.split('\n')[0].slice(0, 300);
        delete kinds[k];
      });
    const t: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
    const berthCpu: number[] = [];
    const baseCpu: number[] = [];
    const phased = ['berthNone', 'berthBridge', 'baseNone', 'ctrRun', 'ctrSeccomp'];
    const phases: Record<string, Record<string, number[]>> = {};
    // per kind, the CPU of each component per run (ms), and berthNone's windows on the wall clock (for the trace)
    const cpu: Record<string, Record<string, number>[]> = {};
    const cpuOf = (k: string) => (k === 'berthNone' || k === 'berth' ? berthd.pid : (k === 'baseNone' || k === 'base') && base ? base.pid : undefined);
    for (let i = 0; i < samples; i++)
      for (const [k, f] of Object.entries(kinds)) {
        const pid = cpuOf(k);
        const c0 = pid ? cpuMs(pid) : 0;
        const a0 = acct?.read();
        const w0 = wallMs();
        t[k].push(await f());
        const w1 = wallMs();
        if (k === 'berthNone') windows.push([w0, w1]);
        if (pid) (k === 'berthNone' ? berthCpu : baseCpu).push(cpuMs(pid) - c0);
        if (phased.includes(k)) {
          await new Promise((r) => setTimeout(r, 5)); // (the last events' delivery)
          const ph = watch.phases(w0, w1);
          if (ph) for (const [name, ms] of Object.entries(ph)) ((phases[k] ??= {})[name] ??= []).push(ms);
        }
        if (acct && a0) (cpu[k] ??= []).push(acct.perRun(a0, acct.read()));
      }
    // (b) 40 runs, 8 at a time
    const par: Record<string, () => Promise<number>> = { ...(kinds.berthNone ? { berth: kinds.berthNone } : {}), ...(kinds.baseNone ? { base: kinds.baseNone } : {}), ...(kinds.ctrRun ? { ctrRun } : {}), ...(kinds.ctrSeccomp ? { ctrSeccomp } : {}), ...(kinds.refNone ? { ref: kinds.refNone } : {}), ...(kinds.cliFloor ? { cliFloor: kinds.cliFloor } : {}) };
    const p: Record<string, number[]> = Object.fromEntries(Object.keys(par).map((k) => [k, []]));
    const berthCpu40: number[] = [];
    const cpu40: Record<string, Record<string, number>[]> = {};
    const baseCpu40: number[] = [];
    for (let i = 0; i < rounds; i++)
      for (const [k, f] of Object.entries(par)) {
        const pid = cpuOf(k);
        const c0 = pid ? cpuMs(pid) : 0;
        const a0 = acct?.read();
        p[k].push(await batch(40, 8, f));
        if (acct && a0) (cpu40[k] ??= []).push(acct.perRun(a0, acct.read(), 40));
        if (pid) (k === 'berth' ? berthCpu40 : baseCpu40).push(cpuMs(pid) - c0);
      }
    const m = (k: string) => median(t[k]);
    const report = {
      samples,
      rounds,
      load: load0.map(r2),
      runMs: Object.fromEntries(Object.keys(t).map((k) => [k, { median: r1(m(k)), min: r1(Math.min(...t[k])), max: r1(Math.max(...t[k])) }])),
      berthCpuMsPerRun: r1(mean(berthCpu)),
      ...(base ? { baseCpuMsPerRun: r1(mean(baseCpu)), berthNoneOverBase: r2(m('berthNone') / m('baseNone')), berthBridgeOverBase: r2(m('berthBridge') / m('baseBridge')) } : {}),
      ratios: {
        berthNoneOverCtr: r2(m('berthNone') / m('ctrRun')),
        berthBridgeOverNone: r2(m('berthBridge') / m('berthNone')),
        ...(t.refNone ? { berthNoneOverRef: r2(m('berthNone') / m('refNone')) } : {}),
        ...(t.refBridge ? { berthBridgeOverRef: r2(m('berthBridge') / m('refBridge')) } : {}),
        ...(t.cliFloor ? { berthMinusFloorOverCtr: r2((m('berthNone') - m('cliFloor')) / m('ctrRun')) } : {}),
        ...(t.ctrSeccomp ? { berthNoneOverCtrSeccomp: r2(m('berthNone') / m('ctrSeccomp')) } : {}),
        ...(t.ctrSeccomp && t.cliFloor ? { berthMinusFloorOverCtrSeccomp: r2((m('berthNone') - m('cliFloor')) / m('ctrSeccomp')) } : {}),
      },
      ...(t.cliFloor ? { berthMinusFloorMs: r1(m('berthNone') - m('cliFloor')), cliFloorUnexpected: floor.unexpected } : {}),
      // per phase (containerd's event timestamps), the medians in ms, and berth's minus ctr's
      phaseMedianMs: Object.fromEntries(Object.entries(phases).map(([k, ph]) => [k, { runs: ph.toExit?.length ?? 0, ...Object.fromEntries(PHASES.map((n) => [n, r1(median(ph[n]))])) }])),
      ...(phases.berthNone && phases.baseNone ? { phaseBerthMinusBaseMs: Object.fromEntries(PHASES.map((n) => [n, r1(median(phases.berthNone[n]) - median(phases.baseNone[n]))])) } : {}),
      ...(phases.berthNone && phases.ctrRun ? { phaseBerthMinusCtrMs: Object.fromEntries(PHASES.map((n) => [n, r1(median(phases.berthNone[n]) - median(phases.ctrRun[n]))])) } : {}),
      // CPU per run (ms, medians) of each component: the client (docker CLI or ctr), berthd's main thread, its other
      // threads and its helpers, containerd with its shims and runc, the container itself, and the rest of the machine
      ...(acct ? { cpuMsPerRun: Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, medianCensus(xs)])) } : {}),
      // the berthNone runs' steps in berthd (BENCH_TRACE): HTTP requests, containerd calls, commands and writes, each
      // with its median start from the client's start and its median duration
      ...(trace ? { berthTimeline: runTimeline(readTrace(path.resolve(trace)), windows) } : {}),
      // berthd's main thread in those runs (BENCH_CPUPROF with BENCH_TRACE, which gives the clock): self time per run
      // by origin, written when berthd stops (below)
      parallel40x8Ms: Object.fromEntries(Object.keys(p).map((k) => [k, r1(median(p[k]))])),
      parallelRatios: { berthOverCtr: r2(median(p.berth) / median(p.ctrRun)), ...(p.ctrSeccomp ? { berthOverCtrSeccomp: r2(median(p.berth) / median(p.ctrSeccomp)) } : {}), ...(p.ref ? { berthOverRef: r2(median(p.berth) / median(p.ref)) } : {}), ...(p.cliFloor ? { berthMinusFloorOverCtr: r2((median(p.berth) - median(p.cliFloor)) / median(p.ctrRun)) } : {}),
        // the limit of the goal against the reference: containerd with the engine's seccomp profile and nobody in between
        ...(p.ctrSeccomp && p.ref ? { ctrSeccompOverRef: r2(median(p.ctrSeccomp) / median(p.ref)) } : {}) },
      parallel40x8Rounds: Object.fromEntries(Object.keys(p).map((k) => [k, p[k].map(r1)])),
      berthCpuMsPer40: r1(median(berthCpu40)),
      berthCpuMsPer40Rounds: berthCpu40.map(r1),
      ...(base ? { baseCpuMsPer40Rounds: baseCpu40.map(r1) } : {}),
      ...(acct ? { parallel40x8CpuMsPerRun: Object.fromEntries(Object.entries(cpu40).map(([k, xs]) => [k, medianCensus(xs)])) } : {}),
      ...(base ? { baseCpuMsPer40: r1(median(baseCpu40)), parallelBerthOverBase: r2(median(p.berth) / median(p.base)) } : {}),
      reference: withRef ? REF_SOCK : 'not answering',
      ...(Object.keys(refFailures).length ? { referenceLeftOut: refFailures } : {}),
      loadAfter: os.loadavg().map(r2),
      goals: { berthNoneOverCtr: '<= 1.10', berthBridgeOverNone: '<= 1.10', parallelBerthOverCtr: '<= 1.2', parallelBerthOverRef: '<= 0.5' },
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    for (const c of cleanups) await c();
    for (const b of [berthd, base]) await stopBerthd(b);
    await cleanupNamespace(ctr);
    if (base) await cleanupNamespace(ctr.withNamespace(`${ns}-base`));
    await removeScratch({ ctdPid: ctd.pid, bridges: [bridge, ...(base ? [baseBridge] : [])], dir });
    await acct?.close();
  }
  if (trace && cpuProf) {
    const clock = traceClock(path.resolve(trace));
    const main = fs.readdirSync(cpuProf).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${berthd.pid}.0.`));
    const mono = windows.map(([a, b]): [number, number] => [clock.monoUs + (a - clock.wallMs) * 1e3, clock.monoUs + (b - clock.wallMs) * 1e3]);
    if (main[0]) console.log(JSON.stringify({ berthMainProfileMsPerRun: profileByOrigin(path.join(cpuProf, main[0]), windows.length, mono) }, null, 2));
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
