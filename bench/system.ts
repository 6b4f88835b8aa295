// Foundation benchmark (a script, not a test): berth's idle RSS (3 s and 15 s after its start, beside a bare node's,
// the floor on this machine, and the reference dockerd's), start-up time to the first answered /_ping with
// containerd already running, and requests/s for GET /_ping and GET /v1.24/version under concurrent load from a
// second process (autocannon). Run: npm run build && node dist/bench/system.js
import { spawn, execFileSync, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { ping } from './canned-engine';

const ROOT = path.resolve(__dirname, '../..');

function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** RSS split: file-backed pages (the node binary's and its libraries' code and data touched) and anonymous ones
 *  (V8's heap, malloc, stacks), in MB (docs/performance.md, "Idle memory"). */
function rssSplitMB(pid: number): { file: number; anon: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (k: string) => +(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024).toFixed(1);
  return { file: mb('RssFile'), anon: mb('RssAnon') };
}

async function startBerth(dir: string, ctd: string, port: number): Promise<{ child: ChildProcess; ms: number; socket: string }> {
  const socket = path.join(dir, 'berth.sock');
  const t0 = process.hrtime.bigint();
  const child = spawn(path.join(ROOT, 'bin/berthd'), ['-H', `unix://${socket}`, '-H', `tcp://127.0.0.1:${port}`, '--tls=false', '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd, '--namespace', 'berth-bench', '--log-level', 'error'], { stdio: 'ignore' });
  for (;;) {
    if (await ping(socket)) break;
    if (child.exitCode !== null) throw new Error('berthd exited');
    await new Promise((r) => setTimeout(r, 2));
  }
  return { child, ms: Number(process.hrtime.bigint() - t0) / 1e6, socket };
}

function load(url: string, seconds: number): { rps: number; p50: number; p99: number } {
  const bin = path.join(ROOT, 'node_modules/.bin/autocannon');
  const out = execFileSync(bin, ['-j', '-c', '32', '-d', String(seconds), url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const j = JSON.parse(out);
  return { rps: j.requests.average, p50: j.latency.p50, p99: j.latency.p99 };
}

async function main(): Promise<void> {
  const ctd = process.env.BERTH_BENCH_CONTAINERD ? { address: process.env.BERTH_BENCH_CONTAINERD, pid: 0, dir: '' } : await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-'));
  const port = 23750 + Math.floor(Math.random() * 1000);
  try {
    // Start-up: first run creates the data root; measure a few warm starts.
    const starts: number[] = [];
    let berth = await startBerth(dir, ctd.address, port);
    for (let i = 0; i < 5; i++) {
      berth.child.kill('SIGTERM');
      await new Promise((r) => berth.child.once('exit', r));
      berth = await startBerth(dir, ctd.address, port);
      starts.push(berth.ms);
    }
    starts.sort((a, b) => a - b);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = rssKiB(berth.child.pid!);
    const idleSplit = rssSplitMB(berth.child.pid!);
    // the floor on this machine: a bare node (the launcher's flags, an event loop kept alive, nothing loaded),
    // measured as long after its start; and berthd again 15 s after its first /_ping (the orphan-shim sweep at
    // 15 s has run; V8's memory reducer may have run)
    const bare = spawn(process.execPath, ['--max-semi-space-size=1', '-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 3000));
    const bareIdle = rssKiB(bare.pid!);
    const bareSplit = rssSplitMB(bare.pid!);
    bare.kill();
    await new Promise((r) => setTimeout(r, 9500));
    const idleLater = rssKiB(berth.child.pid!);
    const idleLaterSplit = rssSplitMB(berth.child.pid!);
    const pingLoad = load(`http://127.0.0.1:${port}/_ping`, 5);
    const versionLoad = load(`http://127.0.0.1:${port}/v1.24/version`, 5);
    const afterLoad = rssKiB(berth.child.pid!);
    let refIdle = '';
    const refPidFile = process.env.REF_DOCKERD_PIDFILE ?? '/work/ref/docker.pid';
    if (fs.existsSync(refPidFile)) {
      try {
        refIdle = `${(rssKiB(Number(fs.readFileSync(refPidFile, 'utf8').trim())) / 1024).toFixed(1)} MB`;
      } catch {
        /* not running */
      }
    }
    const report = {
      idleRssMB: +(idle / 1024).toFixed(1),
      idleRssSplitMB: idleSplit,
      idleRssAt15sMB: +(idleLater / 1024).toFixed(1),
      idleRssAt15sSplitMB: idleLaterSplit,
      bareNodeIdleRssMB: +(bareIdle / 1024).toFixed(1),
      bareNodeIdleRssSplitMB: bareSplit,
      referenceDockerdIdleRss: refIdle || 'not running',
      rssAfterLoadMB: +(afterLoad / 1024).toFixed(1),
      startupToFirstPingMs: { median: +starts[2].toFixed(0), min: +starts[0].toFixed(0), max: +starts[4].toFixed(0) },
      ping: pingLoad,
      version: versionLoad,
      goals: { idleRssMB: '<= 60', startupMs: '< 1000' },
    };
    console.log(JSON.stringify(report, null, 2));
    berth.child.kill('SIGTERM');
  } finally {
    if (ctd.pid) {
      try {
        process.kill(ctd.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
