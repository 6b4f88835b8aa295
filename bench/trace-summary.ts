// Sums up a timeline written by bench/trace.ts (BENCH_TRACE of bench:cli): for each kind of step (an HTTP route with
// ids as :id, a containerd call, a command, an fsync) how many ran per container created, and their median and total
// ms per container. Run: node dist/bench/trace-summary.js FILE
import * as fs from 'node:fs';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const r2 = (x: number) => +x.toFixed(2);

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

main(process.argv[2] ?? '');
