// Sums up a timeline written by bench/trace.ts (BENCH_TRACE of bench:cli): for each kind of step (an HTTP route with
// ids as :id, a containerd call, a command, an fsync) how many ran per container created, and their median and total
// ms per container. Run: node dist/bench/trace-summary.js FILE
// `runTimeline` places a trace's steps in the runs of a bench (their wall-clock windows): per step, in order, its
// median start from the run's start and its median duration (bench:cli and bench:lifecycle with BENCH_TRACE).
// With `--cpuprof FILE.cpuprofile [runs]`, it sums a V8 CPU profile (BENCH_CPUPROF) instead: self time by where the
// code comes from (berth's folders, each package, node's internals, GC), in ms per run when `runs` is given.
import * as fs from 'node:fs';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const r2 = (x: number) => +x.toFixed(2);

export interface TraceStep {
  name: string;
  /** wall clock, ms since the epoch */
  start: number;
  dur?: number;
}

/** A trace's clocks at its t0: the wall clock (ms since the epoch) and the monotonic clock (µs). */
export function traceClock(file: string): { wallMs: number; monoUs: number } {
  const w = fs.readFileSync(file, 'utf8').split('\n')[0].split(' ');
  return { wallMs: Number(w[2]), monoUs: Number(w[3]) };
}

/** A trace file's steps, on the wall clock (its `epoch` line). */
export function readTrace(file: string): TraceStep[] {
  const out: TraceStep[] = [];
  let epoch = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const w = line.split(' ');
    if (w.length < 2) continue;
    const t = Number(w[0]);
    const num = (i: number) => Number(w[w.length - i]);
    const err = w[w.length - 1] === 'ERR';
    const tail = (i: number) => (err ? num(i + 1) : num(i)); // (the last fields, an ERR left aside)
    if (w[1] === 'epoch') epoch = Number(w[2]);
    else if (w[1] === 'http<') out.push({ name: `http ${w[2]} ${w[3].replace(/[0-9a-f]{64}/g, ':id').replace(/\?.*/, '')}`, start: t - Number(w[4]), dur: Number(w[4]) });
    else if (w[1] === 'upgrade>') out.push({ name: `upgrade ${w[2]} ${w[3].replace(/[0-9a-f]{64}/g, ':id').replace(/\?.*/, '')}`, start: t });
    else if (w[1] === 'events-write') out.push({ name: `events-write ${w.slice(2).join(' ').slice(0, 20)}`, start: t });
    else if (w[1] === 'grpc') out.push({ name: `grpc ${w[2]}${err ? ' (failed)' : ''}`, start: tail(2), dur: tail(1) });
    else if (w[1] === 'cmd') out.push({ name: `cmd ${w[2]} ${w.slice(3, Math.min(5, w.length - 2)).join(' ')}`, start: num(2), dur: num(1) });
    else if (['save', 'fsync', 'outputDone'].includes(w[1])) out.push({ name: w[1], start: num(2), dur: num(1) });
  }
  for (const s of out) s.start += epoch;
  return out;
}

/**
 * The steps of each run (a window [t0, t1] on the wall clock), a step named by its kind and its rank among the run's
 * steps of that kind (`#2`): per step, in how many runs it came, its median start from the run's t0 and its median
 * duration (ms); sorted by the start.
 */
export function runTimeline(steps: TraceStep[], windows: [number, number][]): { step: string; runs: number; atMs: number; ms?: number }[] {
  const by = new Map<string, { at: number[]; dur: number[] }>();
  for (const [t0, t1] of windows) {
    const seen = new Map<string, number>();
    for (const s of steps) {
      if (s.start < t0 - 0.5 || s.start > t1 + 0.5) continue;
      const k = (seen.get(s.name) ?? 0) + 1;
      seen.set(s.name, k);
      const name = k > 1 ? `${s.name} #${k}` : s.name;
      const e = by.get(name) ?? { at: [], dur: [] };
      by.set(name, e);
      e.at.push(s.start - t0);
      if (s.dur !== undefined) e.dur.push(s.dur);
    }
  }
  return [...by]
    .map(([step, e]) => ({ step, runs: e.at.length, atMs: r2(median(e.at)), ...(e.dur.length ? { ms: r2(median(e.dur)) } : {}) }))
    .sort((a, b) => a.atMs - b.atMs);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/**
 * Where a V8 CPU profile's self time went, by origin (ms; divided by `runs`); only the samples within `windows` (on
 * the monotonic clock, µs) when given.
 */
export function profileByOrigin(file: string, runs = 1, windows?: [number, number][]): Record<string, number> {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  const origin = new Map<number, string>();
  for (const n of p.nodes) {
    const { url, functionName } = n.callFrame;
    let o: string;
    if (!url) o = ['(garbage collector)', '(idle)', '(program)'].includes(functionName) ? functionName : `(native) ${functionName || '?'}`.slice(0, 40);
    else if (url.startsWith('node:')) o = `node ${url.slice(5).split('/').slice(0, 2).join('/')}`;
    else if (url.includes('/node_modules/')) {
      const after = url.split('/node_modules/').pop() ?? '';
      o = `pkg ${after.startsWith('@') ? after.split('/').slice(0, 2).join('/') : after.split('/')[0]}`;
    } else {
      const m = /\/dist\/(src|bench)\/(.*)$/.exec(url);
      o = m ? `berth ${m[1]}/${m[2].split('/')[0].replace(/\.js$/, '')}` : url;
    }
    origin.set(n.id, o);
  }
  const out: Record<string, number> = {};
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (windows && !windows.some(([a, b]) => at >= a && at <= b)) continue;
    const o = origin.get(p.samples[i]) ?? '?';
    out[o] = (out[o] ?? 0) + (p.timeDeltas[i] ?? 0) / 1000;
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => [k, r2(v / runs)]),
  );
}

function main(file: string): void {
  const steps = new Map<string, number[]>();
  let creates = 0;
  const add = (k: string, ms: number) => steps.set(k, [...(steps.get(k) ?? []), ms]);
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const w = line.split(' ');
    const last = Number(w[w.length - 1] === 'ERR' ? w[w.length - 2] : w[w.length - 1]);
    if (w[1] === 'http<') {
      const route = w[3].replace(/[0-9a-f]{64}/g, ':id').replace(/\?.*/, '');
      if (route.endsWith('/containers/create')) creates++;
      add(`http ${w[2]} ${route}`, last);
    } else if (w[1] === 'grpc') add(`grpc ${w[2]}${w[w.length - 1] === 'ERR' ? ' (failed)' : ''}`, last);
    else if (w[1] === 'cmd') add(`cmd ${w[2]} ${w.slice(3, 5).join(' ')}`, last);
    else if (w[1] === 'fsync') add('fsync', last);
  }
  const per = Math.max(creates, 1);
  const out = Object.fromEntries(
    [...steps].sort(([a], [b]) => a.localeCompare(b)).map(([k, xs]) => [k, { perContainer: r2(xs.length / per), medianMs: r2(median(xs)), msPerContainer: r2(xs.reduce((a, b) => a + b, 0) / per) }]),
  );
  console.log(JSON.stringify({ containers: creates, steps: out }, null, 2));
}

if (require.main === module) {
  if (process.argv[2] === '--cpuprof') console.log(JSON.stringify(profileByOrigin(process.argv[3] ?? '', Number(process.argv[4] ?? 1)), null, 2));
  else main(process.argv[2] ?? '');
}
