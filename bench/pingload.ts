// API latency while containers log (a script, not a test; issue 20, goal 1): `GET /_ping` p50/p99 from a client
// in a process of its own, idle and while 4 containers write 63-byte lines to stdout as fast as they can (64 KiB
// writes; json-file logging, nobody following), for berthd (a process of its own, on a private containerd) and for
// the reference engine (REF_SOCK, default /work/ref/docker.sock; left out when it does not answer). Also the
// writers' aggregate rate (bytes logged / time until all four exited) and berthd's CPU seconds meanwhile.
// Run: npm run bench:pingload [MiB per container, default 128]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Containerd } from '../src/containerd/client';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { writer } from './log-writers';
import { berthdNodeFlags, removeScratch, stopBerthd } from './scratch';
import { startCensus, type CensusOptions } from './cpu-census';

const ROOT = path.resolve(__dirname, '../..');
const REF_SOCK = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const r2 = (x: number) => +x.toFixed(2);

/** Pings one after another on one keep-alive connection until told to stop (stdin closes); prints the latencies (ms). */
const PINGER = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const lat = [];
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
(function next() {
  if (stop) return process.stdout.write(JSON.stringify(lat) + '\\n');
  const t0 = process.hrtime.bigint();
  http.get({ socketPath: process.argv[1], path: '/_ping', agent }, (res) => {
    res.resume();
    res.on('end', () => { lat.push(Number(process.hrtime.bigint() - t0) / 1e6); setTimeout(next, 2); });
  }).on('error', () => setTimeout(next, 2));
})();
`;

function pinger(sock: string): { pid: number; stop(): Promise<number[]> } {
  const child = spawn(process.execPath, ['-e', PINGER, sock], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  return {
    pid: child.pid!,
    stop: async () => {
      child.stdin.end();
      await new Promise((r) => child.once('close', r));
      return JSON.parse(out) as number[];
    },
  };
}

function ping(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const r = http.get({ socketPath: socket, path: '/_ping' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    r.on('error', () => resolve(false));
  });
}

const cpuS = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(x[11]) + Number(x[12])) / 100;
};

/** Ping latencies idle (3 s), then while 4 writers run; the writers' MB/s. */
async function measure(sock: string, pid: number, bytes: number, census: Omit<CensusOptions, 'berthPid' | 'clientPids'>): Promise<Record<string, unknown>> {
  const idle = pinger(sock);
  await new Promise((r) => setTimeout(r, 3000));
  const idleLat = await idle.stop();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const c = await request(sock, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: writer(63, true, bytes), HostConfig: { NetworkMode: 'none' } } });
    if (!c.json().Id) throw new Error(`create: ${c.text}`);
    ids.push(c.json().Id);
  }
  const busy = pinger(sock);
  await new Promise((r) => setTimeout(r, 500));
  // Where the cores went meanwhile (bench/cpu-census.ts): the daemon's threads (and how long its main thread waited
  // for a core), the writers, their shims, the pinger, everyone else.
  const cen = startCensus({ ...census, berthPid: pid, clientPids: () => [busy.pid] });
  const c0 = cpuS(pid);
  const t0 = process.hrtime.bigint();
  await Promise.all(ids.map((id) => request(sock, 'POST', `/v1.24/containers/${id}/start`)));
  await Promise.all(ids.map((id) => request(sock, 'POST', `/v1.24/containers/${id}/wait`)));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = cpuS(pid) - c0;
  const cpuCensus = cen.stop();
  const busyLat = await busy.stop();
  for (const id of ids) await request(sock, 'DELETE', `/v1.24/containers/${id}?force=1`);
  return {
    idlePingMs: { p50: r2(pct(idleLat, 0.5)), p99: r2(pct(idleLat, 0.99)), n: idleLat.length },
    busyPingMs: { p50: r2(pct(busyLat, 0.5)), p99: r2(pct(busyLat, 0.99)), max: r2(Math.max(...busyLat)), n: busyLat.length },
    writersMBps: +((4 * bytes) / 1e6 / s).toFixed(0),
    daemonCpuS: r2(cpu),
    cpuCensus,
  };
}

async function main(): Promise<void> {
  const bytes = Number(process.argv[2] ?? 128) << 20;
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-pl-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-pl-${process.pid}`;
  const bridge = { name: 'bbpl0', subnet: '10.253.241.0/24' };
  // BENCH_NODE_ARGS: more node options for berthd (--cpu-prof --cpu-prof-dir=DIR: a CPU profile of each of its threads)
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const berthd = spawn(process.execPath, [...berthdNodeFlags(ROOT), ...nodeArgs, path.join(ROOT, 'dist/src/main.js'), '-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', ns, '--cgroup-parent', `/${ns}`, '--bridge-name', bridge.name, '--bridge-subnet', bridge.subnet, '--log-level', 'error'], { stdio: 'ignore' });
  const ctr = new Containerd({ address: ctd.address, namespace: ns });
  try {
    while (!(await ping(socket))) {
      if (berthd.exitCode !== null) throw new Error('berthd exited');
      await new Promise((r) => setTimeout(r, 20));
    }
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const berth = await measure(socket, berthd.pid!, bytes, { containerdPid: ctd.pid, shimMatch: `-namespace ${ns} `, cgroupParent: `/${ns}` });
    const refPidFile = process.env.REF_PIDFILE ?? '/work/ref/docker.pid';
    const ref = (await ping(REF_SOCK)) && fs.existsSync(refPidFile) ? await measure(REF_SOCK, Number(fs.readFileSync(refPidFile, 'utf8').trim()), bytes, { prefix: 'dockerd', shimMatch: '-namespace moby ', cgroupParent: '/docker' }) : 'not answering';
    console.log(JSON.stringify({ load: os.loadavg().map(r2), mibPerContainer: bytes >> 20, berth, reference: ref, goals: { busyPingP99Ms: '< 5' } }, null, 2));
  } finally {
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
