// API latency while containers log (a script, not a test; issue 20, goal 1): `GET /_ping` p50/p99 from a client
// in a process of its own, idle and while 4 containers write 63-byte lines to stdout as fast as they can (64 KiB
// writes; json-file logging, nobody following), for berthd (a process of its own, on a private containerd) and for
// the reference engine (REF_SOCK, default /work/ref/docker.sock; left out when it does not answer). Also the
// writers' aggregate rate (bytes logged / time until all four exited) and berthd's CPU seconds meanwhile.
// The floor (`bareNodeFloor`): a bare Node HTTP server on a unix socket, a process of its own answering `/_ping` with
// berth's headers and body, pinged by the same client while the same 4 writers run through berth: what any Node
// server gets of two cores shared with them (issue 20, goal 1). Rounds alternate berth, the floor and the
// reference, in a rotating order; the figures are the rounds' medians (of an even count, the higher; each round's
// in `rounds`). BENCH_SIDES=berth,bareNodeFloor: only those sides (e.g. for a profile of berthd).
// BENCH_BERTH_ROOTS=ROOT_A,ROOT_B,...: an A/B of berthd builds (each ROOT a frozen copy of a built worktree, as
// bench/scale-ab.ts takes them), each its own berthd on the same containerd, as sides `berth:<ROOT's name>` in the
// same rounds (the floor's writers run through the first); without it, this worktree's build as `berth`.
// Run: npm run bench:pingload [MiB per container, default 128] [rounds, default 1]
import { spawn, type ChildProcess } from 'node:child_process';
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
import { berthdNodeFlags, berthdScript, removeScratch, stopBerthd } from './scratch';
import { medianCensus, startCensus, type CensusOptions } from './cpu-census';

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

/** A bare Node server on `sock` answering /_ping (GET and HEAD) with `headers` and `body`: the floor. */
const BARE = `
const http = require('node:http');
const [sock, headers, body] = process.argv.slice(1);
const h = JSON.parse(headers);
http.createServer((req, res) => {
  res.writeHead(200, h);
  res.end(req.method === 'HEAD' ? undefined : body);
}).listen(sock, () => process.stdout.write('ready\\n'));
`;

/** berth's own /_ping answer: its headers (less those any Node server adds itself) and body. */
function pingAnswer(socket: string): Promise<{ headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: socket, path: '/_ping' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (!/^(date|connection|keep-alive|transfer-encoding)$/i.test(res.rawHeaders[i])) headers[res.rawHeaders[i]] = res.rawHeaders[i + 1];
          }
          resolve({ headers, body });
        });
      })
      .on('error', reject);
  });
}

async function startBare(sock: string, answer: { headers: Record<string, string>; body: string }, nodeFlags: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeFlags, '-e', BARE, sock, JSON.stringify(answer.headers), answer.body], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the bare server exited')));
  });
  return child;
}

/** A thread's (or a process's main thread's) time runnable but waiting for a core, in seconds (schedstat). */
const waitS = (pid: number) => {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return NaN;
  }
};

const cpuS = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(x[11]) + Number(x[12])) / 100;
};

/** Ping latencies idle (3 s), then while 4 writers run; the writers' MB/s. The writers run through the engine on
 *  `sock` (its process `pid`); the pings go to `pinged` (default the engine itself; the floor: the bare server). */
async function measure(sock: string, pid: number, bytes: number, census: Omit<CensusOptions, 'berthPid' | 'clientPids'>, pinged?: { sock: string; pid: number }): Promise<Phase> {
  const pingSock = pinged?.sock ?? sock;
  const idle = pinger(pingSock);
  await new Promise((r) => setTimeout(r, 3000));
  const idleLat = await idle.stop();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const c = await request(sock, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: writer(63, true, bytes), HostConfig: { NetworkMode: 'none' } } });
    if (!c.json().Id) throw new Error(`create: ${c.text}`);
    ids.push(c.json().Id);
  }
  const busy = pinger(pingSock);
  await new Promise((r) => setTimeout(r, 500));
  const w0 = pinged ? waitS(pinged.pid) : NaN;
  const p0 = pinged ? cpuS(pinged.pid) : NaN;
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
  if (pinged) {
    // the bare server's main thread: its CPU and its wait for a core over the busy phase
    cpuCensus.floorServer = r2(cpuS(pinged.pid) - p0);
    cpuCensus.floorServerWaitS = r2(waitS(pinged.pid) - w0);
  }
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

interface Phase {
  idlePingMs: { p50: number; p99: number; n: number };
  busyPingMs: { p50: number; p99: number; max: number; n: number };
  writersMBps: number;
  daemonCpuS: number;
  cpuCensus: Record<string, number>;
}

const med = (xs: number[]) => r2(pct(xs, 0.5));

/** The rounds' medians, figure by figure (one round: that round). */
function medianPhase(ps: Phase[]): Phase {
  return {
    idlePingMs: { p50: med(ps.map((p) => p.idlePingMs.p50)), p99: med(ps.map((p) => p.idlePingMs.p99)), n: med(ps.map((p) => p.idlePingMs.n)) },
    busyPingMs: { p50: med(ps.map((p) => p.busyPingMs.p50)), p99: med(ps.map((p) => p.busyPingMs.p99)), max: med(ps.map((p) => p.busyPingMs.max)), n: med(ps.map((p) => p.busyPingMs.n)) },
    writersMBps: med(ps.map((p) => p.writersMBps)),
    daemonCpuS: med(ps.map((p) => p.daemonCpuS)),
    cpuCensus: medianCensus(ps.map((p) => p.cpuCensus)),
  };
}

async function main(): Promise<void> {
  const bytes = Number(process.argv[2] ?? 128) << 20;
  const rounds = Math.max(1, Number(process.argv[3] ?? 1));
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-pl-'));
  const ns = `berth-bench-pl-${process.pid}`;
  // BENCH_NODE_ARGS: more node options for berthd (--cpu-prof --cpu-prof-dir=DIR: a CPU profile of each of its threads)
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const roots = process.env.BENCH_BERTH_ROOTS?.split(',').filter(Boolean);
  const subnets = ['10.253.241.0/24', '10.253.245.0/24', '10.253.246.0/24'];
  if ((roots?.length ?? 1) > subnets.length) throw new Error(`at most ${subnets.length} builds`);
  const builds = (roots ?? [ROOT]).map((root, i) => ({
    name: roots ? `berth:${path.basename(root)}` : 'berth',
    root,
    i,
    socket: path.join(dir, `b${i}.sock`),
    ns: i ? `${ns}-${i}` : ns,
    bridge: { name: `bbpl${i}`, subnet: subnets[i] },
    berthd: undefined as ChildProcess | undefined,
  }));
  const flags = berthdNodeFlags(ROOT);
  let bare: ChildProcess | undefined;
  try {
    for (const b of builds) {
      // the bundle bin/berthd runs; tsc's modules under a CPU profile (summed by file)
      const berthd = spawn(process.execPath, [...berthdNodeFlags(b.root), ...nodeArgs, berthdScript(b.root, nodeArgs.some((a) => a.startsWith('--cpu-prof'))), '-H', `unix://${b.socket}`, '--data-root', path.join(dir, `data${b.i}`), '--exec-root', path.join(dir, `exec${b.i}`), '--containerd', ctd.address, '--namespace', b.ns, '--cgroup-parent', `/${b.ns}`, '--bridge-name', b.bridge.name, '--bridge-subnet', b.bridge.subnet, '--log-level', 'error'], { stdio: 'ignore' });
      b.berthd = berthd;
      while (!(await ping(b.socket))) {
        if (berthd.exitCode !== null) throw new Error('berthd exited');
        await new Promise((r) => setTimeout(r, 20));
      }
      await request(b.socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    }
    const socket = builds[0].socket;
    const berthd = builds[0].berthd!;
    // the floor: berth's /_ping answer from a bare Node server (the launcher's memory flag; the start-up interrupt
    // budget is berthd's own and put back once it serves)
    const bareSock = path.join(dir, 'bare.sock');
    bare = await startBare(bareSock, await pingAnswer(socket), flags.filter((f) => !f.startsWith('--interrupt-budget')));
    const refPidFile = process.env.REF_PIDFILE ?? '/work/ref/docker.pid';
    const refUp = (await ping(REF_SOCK)) && fs.existsSync(refPidFile);
    const censusOf = (n: string) => ({ containerdPid: ctd.pid, shimMatch: `-namespace ${n} `, cgroupParent: `/${n}` });
    const sides: Record<string, () => Promise<Phase>> = {
      ...Object.fromEntries(builds.map((b) => [b.name, () => measure(b.socket, b.berthd!.pid!, bytes, censusOf(b.ns))])),
      bareNodeFloor: () => measure(socket, berthd.pid!, bytes, censusOf(ns), { sock: bareSock, pid: bare!.pid! }),
      ...(refUp ? { reference: () => measure(REF_SOCK, Number(fs.readFileSync(refPidFile, 'utf8').trim()), bytes, { prefix: 'dockerd', shimMatch: '-namespace moby ', cgroupParent: '/docker' }) } : {}),
    };
    const only = process.env.BENCH_SIDES?.split(',');
    const names = Object.keys(sides).filter((n) => !only || only.includes(n));
    const got: Record<string, Phase[]> = Object.fromEntries(names.map((n) => [n, []]));
    const order: string[][] = [];
    for (let r = 0; r < rounds; r++) {
      // a rotating order: each side goes first in turn
      const o = names.map((_, i) => names[(i + r) % names.length]);
      order.push(o);
      for (const n of o) got[n].push(await sides[n]());
    }
    const res = Object.fromEntries(names.map((n) => [n, medianPhase(got[n])]));
    const p99 = (n: string) => res[n]?.busyPingMs.p99;
    console.log(
      JSON.stringify(
        {
          load: os.loadavg().map(r2),
          mibPerContainer: bytes >> 20,
          busyPingP99Ms: { ...Object.fromEntries(builds.map((b) => [b.name, p99(b.name)])), bareNodeFloor: p99('bareNodeFloor'), reference: p99('reference') ?? 'not answering' },
          ...Object.fromEntries(builds.map((b) => [b.name, res[b.name]])),
          bareNodeFloor: res.bareNodeFloor,
          reference: res.reference ?? 'not answering',
          ...(rounds > 1
            ? {
                rounds: {
                  order,
                  busyPingMs: Object.fromEntries(names.map((n) => [n, got[n].map((p) => p.busyPingMs)])),
                  writersMBps: Object.fromEntries(names.map((n) => [n, got[n].map((p) => p.writersMBps)])),
                  captureCpuS: Object.fromEntries(names.map((n) => [n, got[n].map((p) => p.cpuCensus.berthCapture ?? p.cpuCensus.dockerdOther)])),
                },
              }
            : {}),
          goals: { busyPingP99Ms: '< 5' },
        },
        null,
        2,
      ),
    );
  } finally {
    bare?.kill();
    for (const b of builds) {
      await stopBerthd(b.berthd);
      await cleanupNamespace(new Containerd({ address: ctd.address, namespace: b.ns }));
    }
    await removeScratch({ ctdPid: ctd.pid, bridges: builds.map((b) => b.bridge), dir });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
