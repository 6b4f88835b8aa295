// Load benchmark (a script, not a test; issue 19): N clients, each looping create → start → exec → logs → inspect →
// list → kill → wait → rm of a busybox container for S seconds, with two /events subscribers open, against berth (the
// real bin/berthd, a process of its own so its RSS and fds are its own) and then the reference engine, at each
// client count in turn. Per target and count: iterations, errors by operation (with the first messages), p50/p99/max
// per operation, what was left behind afterwards (containers; for berth also containerd containers, tasks,
// snapshots, leases, FIFOs), and the daemon's RSS and open fds before, at peak and after.
// Run: npm run bench:load [seconds] [clients,clients]   (defaults 60 and 64,200; REF_SOCK / REF_PID override the
// reference's socket and pid file, default /work/ref/docker.sock and /work/ref/docker.pid; BERTH_LOAD_TARGETS=berth
// or =reference runs one side only)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Containerd } from '../src/containerd/client';
import { request } from '../test/helpers/berth';
import { berthInventory, runLoad as run, type RunResult, type Target } from '../test/helpers/load-run';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace, listSnapshots } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { removeScratch, stopBerthd } from './scratch';

const ROOT = path.resolve(__dirname, '../..');
const REF = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const REF_PID = process.env.REF_PID ?? '/work/ref/docker.pid';
const round = (x: number) => +x.toFixed(1);

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 60);
  const levels = (process.argv[3] ?? '64,200').split(',').map(Number);
  const only = process.env.BERTH_LOAD_TARGETS;
  const ctd = process.env.BERTH_BENCH_CONTAINERD ? { address: process.env.BERTH_BENCH_CONTAINERD, pid: 0, dir: '' } : await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-load-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-load-${process.pid}`;
  const bridge = 'berthload0';
  const subnet = '10.254.251.0/24';
  const ctr = new Containerd({ address: ctd.address, namespace: ns });
  const log = fs.openSync(path.join(dir, 'berthd.log'), 'w');
  const berthd = (await import('node:child_process')).spawn(
    path.join(ROOT, 'bin/berthd'),
    ['-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', ns, '--bridge-name', bridge, '--bridge-subnet', subnet, '--cgroup-parent', `/${ns}`, '--log-level', 'warn'],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  try {
    for (let i = 0; !(await request(socket, 'GET', '/_ping').then((r) => r.status === 200, () => false)); i++) {
      if (i > 600 || berthd.exitCode !== null) throw new Error(`berthd did not start: ${fs.readFileSync(path.join(dir, 'berthd.log'), 'utf8').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    // counted after the warm-up, as load.test does: the first create makes the image's shared init layer, which
    // stays with the image (it is not a leak)
    let baseSnapshots = 0;
    const fifoDir = path.join(dir, 'exec', 'fifo');
    const berth: Target = {
      name: 'berth',
      socket,
      pid: berthd.pid!,
      inventory: () => berthInventory(ctr, baseSnapshots, fifoDir),
    };
    const reference: Target = { name: 'reference', socket: REF, pid: Number(fs.readFileSync(REF_PID, 'utf8').trim()) };
    const targets = [berth, reference].filter((t) => !only || t.name === only);
    const results: Record<string, RunResult[]> = {};
    for (const clients of levels)
      for (const t of targets) {
        // a short warm-up so both start with their image and first container done
        await run(t, 2, 1, `warm-${process.pid}`);
        if (t === berth) baseSnapshots = (await listSnapshots(ctr)).length;
        (results[t.name] ??= []).push(await run(t, clients, seconds, `${process.pid}-${clients}`));
        process.stderr.write(`${t.name} ${clients} clients done\n`);
      }
    console.log(JSON.stringify({ seconds, levels, loadAverage: os.loadavg().map(round), results }, null, 2));
  } finally {
    await stopBerthd(berthd);
    await cleanupNamespace(ctr);
    ctr.close();
    await removeScratch({ ctdPid: ctd.pid, bridges: [{ name: bridge, subnet }], dir });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
