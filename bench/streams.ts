// Streams benchmark (a script, not a test), in one run against a private containerd:
// (a) a container writes 256 MiB to stdout: time until GET /logs?follow=1 has returned all of it, against reading
//     the same bytes straight from a containerd task's stdout FIFO; then the log read back once the container has
//     exited, against reading its json-file bytes raw; and where each path's CPU went per MB (cpuMsPerMB);
// (b) exec start latency (POST /containers/(id)/exec + POST /exec/(id)/start, detached) against raw
//     Tasks.Exec + Tasks.Start;
// (c) attach throughput: 64 MiB of stdin through `cat` and back over one hijacked attach connection.
// Run: npm run bench:streams [runs]
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { OCI_PROCESS_URL, OCI_SPEC_URL, packJSON } from '../src/containerd/any';
import { DEFAULTS } from '../src/config';
import { startDaemon } from '../src/daemon';
import { silentLogger } from '../src/log';
import { mkfifos, openReader } from '../src/runtime/fifo';
import { generateSpec } from '../src/translate/spec';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { writer as writerOf } from './log-writers';
import { medianCensus, startCensus } from './cpu-census';
import { removeScratch } from './scratch';
import { countFramed } from './framed';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const BYTES = 256 << 20;
const writer = (lineBytes: number, fast: boolean) => writerOf(lineBytes, fast, BYTES);
interface Scenario {
  key: string;
  lineBytes: number;
  fast: boolean;
}
const SCENARIOS: Scenario[] = [
  { key: 'logs256MiB', lineBytes: 63, fast: false },
  { key: 'logs256MiB1000ByteLines', lineBytes: 1000, fast: false },
  { key: 'logs256MiBFastWriter', lineBytes: 63, fast: true },
  { key: 'logs256MiB1000ByteLinesFastWriter', lineBytes: 1000, fast: true },
];


/**
 * A logs client in a process of its own, as the docker CLI is (in berth's process, its own work and garbage would
 * count against berth): started and ready before the timing starts, it sends the request on `go()` and resolves
 * with the payload bytes it got.
 */
async function childClient(socketPath: string, reqPath: string): Promise<{ pid: number; go(): Promise<number>; close(): void }> {
  const child = spawn(process.execPath, [__filename, '--client', socketPath, reqPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      } else lines.push(line);
    }
  });
  const next = () => new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : (waiting = resolve)));
  if ((await next()) !== 'ready') throw new Error('logs client did not start');
  return {
    pid: child.pid!,
    go: async () => {
      child.stdin.write('go\n');
      return Number(await next());
    },
    // the client waits for this to exit (so that its CPU can be read until then)
    close: () => child.stdin.end(),
  };
}

async function clientMain(socketPath: string, reqPath: string): Promise<void> {
  process.stdout.write('ready\n');
  await new Promise((r) => process.stdin.once('data', r));
  const n = await new Promise<number>((resolve, reject) => {
    http.get({ socketPath, path: reqPath, agent: false }, (res) => countFramed(res).then(resolve, reject)).on('error', reject);
  });
  process.stdout.write(`${n}\n`);
  await new Promise((r) => process.stdin.once('end', r).resume());
}

/** Seconds to read `file` whole in 1 MiB reads (the page cache's copy: the log was just written). */
function readRaw(file: string): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  const t0 = process.hrtime.bigint();
  try {
    while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    fs.closeSync(fd);
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/**
 * Where the CPU of each path went, in ms per MB of payload (medians of the census over the runs), user and kernel
 * apart: berth's follow (capture thread: FIFO reads and json-file writes in the kernel, encoding and the follower's
 * framing in user space; main thread: the socket writes in the kernel, routing in user space; the client: its
 * socket reads and frame parsing), the raw FIFO reader beside it, the read-back, and the writer and shim each path
 * also pays. `pathTotal`: every process of the path; `cpuBoundRatio`: raw pathTotal over berth's, the ratio of
 * throughputs when the cores are saturated and each path gets the same share of them.
 */
function perMB(census: Record<string, Record<string, number>[]>, key: string): Record<string, Record<string, number> | number> | undefined {
  const f = census[`follow ${key}`];
  const r = census[`raw ${key}`];
  const b = census[`readBack ${key}`];
  if (!f || !r || !b) return undefined;
  const [fc, rc, bc] = [f, r, b].map(medianCensus);
  const mb = BYTES / 1e6;
  const ms = (x: number | undefined) => +(((x ?? 0) * 1000) / mb).toFixed(2);
  const split = (c: Record<string, number>, name: string, as: string) => ({ [`${as}User`]: ms((c[name] ?? 0) - (c[`${name}SysS`] ?? 0)), [`${as}Kernel`]: ms(c[`${name}SysS`]) });
  const total = (c: Record<string, number>, keys: string[]) => ms(keys.reduce((a, k) => a + (c[k] ?? 0), 0));
  const follow = {
    ...split(fc, 'berthCapture', 'capture'),
    ...split(fc, 'berthMain', 'main'),
    berthOther: ms(fc.berthOther),
    ...split(fc, 'client', 'client'),
    shim: ms(fc.shim),
    writer: ms(fc.writer),
    berthTotal: total(fc, ['berthCapture', 'berthMain', 'berthOther']),
    pathTotal: total(fc, ['berthCapture', 'berthMain', 'berthOther', 'client', 'shim', 'writer']),
    everyoneElse: ms(fc.everyoneElse),
    // the capture thread's read and write system calls per 256 MiB (the FIFO reads, each followed by a log write
    // and a pass through the encoder and the follower's batcher)
    captureReadsPer256MiB: Math.round(((fc.berthCaptureSyscr ?? 0) * (256 << 20)) / BYTES),
    captureWritesPer256MiB: Math.round(((fc.berthCaptureSyscw ?? 0) * (256 << 20)) / BYTES),
  };
  const raw = {
    ...split(rc, 'rawReader', 'reader'),
    readerOther: ms(rc.berthOther),
    shim: ms(rc.shim),
    writer: ms(rc.writer),
    pathTotal: total(rc, ['rawReader', 'berthOther', 'shim', 'writer']),
    everyoneElse: ms(rc.everyoneElse),
  };
  const readBack = {
    ...split(bc, 'berthLogread', 'logread'),
    ...split(bc, 'berthMain', 'main'),
    berthOther: ms(bc.berthOther),
    ...split(bc, 'client', 'client'),
    berthTotal: total(bc, ['berthLogread', 'berthMain', 'berthOther']),
    pathTotal: total(bc, ['berthLogread', 'berthMain', 'berthOther', 'client']),
    everyoneElse: ms(bc.everyoneElse),
  };
  return { follow, raw, readBack, cpuBoundRatio: +(raw.pathTotal / follow.pathTotal).toFixed(2) };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--client') return clientMain(process.argv[3], process.argv[4]);
  const runs = Number(process.argv[2] ?? 3);
  const loadBefore = os.loadavg().map((x) => +x.toFixed(2));
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-st-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-st-${process.pid}`;
  const daemon = await startDaemon({ ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: ctd.address, namespace: ns, cgroupParent: `/${ns}`, bridgeName: 'bbst0', bridgeSubnet: '10.253.252.0/24' }, silentLogger());
  const ctr = daemon.ctr;
  try {
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const img = (await request(socket, 'GET', '/v1.24/images/busybox/json')).json();
    const chain = img.RootFS.Layers[0];
    const create = async (body: Record<string, unknown>) => (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', HostConfig: { NetworkMode: 'none' }, ...body } })).json().Id as string;

    // (a) logs
    const readBackMBs: Record<string, number[]> = {};
    const rawFileMBs: Record<string, number[]> = {};
    // CPU seconds of this process (berth's capture and follow; or the raw FIFO reader) per run: steadier than
    // throughput on a machine whose other tenants come and go.
    const cpu: Record<string, number[]> = {};
    const cpuOf = (sc: Scenario, who: string) => (cpu[`${who}${sc.key}`] ??= []);
    const cpuSeconds = (since: NodeJS.CpuUsage) => {
      const d = process.cpuUsage(since);
      return (d.user + d.system) / 1e6;
    };
    // Where the machine's CPU went in each run (bench/cpu-census.ts), per scenario and phase.
    const census: Record<string, Record<string, number>[]> = {};
    const censusOf = (clientPid?: number) => startCensus({ berthPid: process.pid, clientPids: () => (clientPid ? [clientPid] : []), containerdPid: ctd.pid, shimMatch: `-namespace ${ns} `, cgroupParent: `/${ns}` });
    const viaLogs = async (sc: Scenario) => {
      const id = await create({ Cmd: writer(sc.lineBytes, sc.fast) });
      const client = await childClient(socket, `/v1.24/containers/${id}/logs?follow=1&stdout=1&stderr=1`);
      const cen = censusOf(client.pid);
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await request(socket, 'POST', `/v1.24/containers/${id}/start`);
      const exited = request(socket, 'POST', `/v1.24/containers/${id}/wait`).then(() => Number(process.hrtime.bigint() - t0) / 1e9);
      const got = await client.go();
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      cpuOf(sc, 'berth').push(cpuSeconds(cpu0));
      (census[`follow ${sc.key}`] ??= []).push(cen.stop());
      client.close();
      if (process.env.BENCH_VERBOSE) console.error(`logs: container done writing after ${(await exited).toFixed(2)} s, logs complete after ${s.toFixed(2)} s`);
      if (got !== BYTES) throw new Error(`logs returned ${got} bytes`);
      // The same log read back once the container is gone: the reading half of the path alone.
      const reader = await childClient(socket, `/v1.24/containers/${id}/logs?stdout=1&stderr=1`);
      const cen2 = censusOf(reader.pid);
      const t1 = process.hrtime.bigint();
      const again = await reader.go();
      const readBack = Number(process.hrtime.bigint() - t1) / 1e9;
      (census[`readBack ${sc.key}`] ??= []).push(cen2.stop());
      reader.close();
      if (again !== BYTES) throw new Error(`logs read back ${again} bytes`);
      // The read-back's limit: the same json-file bytes read raw (1 MiB reads, nothing decoded or sent), in MB of
      // payload per second as the read-back's figure.
      const logPath = (await request(socket, 'GET', `/v1.24/containers/${id}/json`)).json().LogPath as string;
      (rawFileMBs[sc.key] ??= []).push(BYTES / 1e6 / readRaw(logPath));
      if (process.env.BENCH_VERBOSE) console.error(`logs: reading the whole log again took ${readBack.toFixed(2)} s`);
      (readBackMBs[sc.key] ??= []).push(BYTES / 1e6 / readBack);
      await request(socket, 'DELETE', `/v1.24/containers/${id}?force=1`);
      return BYTES / 1e6 / s;
    };
    let n = 0;
    const raw = async (cmd: string[]) => {
      const id = `rawst${process.pid}x${n++}`;
      const spec = generateSpec({ id, config: { Cmd: cmd }, hostConfig: {}, user: { uid: 0, gid: 0, additionalGids: [0] }, cgroupParent: `/${ns}`, mounts: [], hostname: id.slice(0, 12), seccompAvailable: true, devices: [], blockDevices: {} });
      await ctr.containers.Create({ container: { id, image: 'docker.io/library/busybox:latest', labels: {}, runtime: { name: 'io.containerd.runc.v2' }, spec: packJSON(OCI_SPEC_URL, spec), snapshotter: 'overlayfs', snapshot_key: id } });
      const { mounts } = await ctr.snapshots.Prepare({ snapshotter: 'overlayfs', key: id, parent: chain, labels: {} });
      const fifo = path.join(dir, id);
      await mkfifos([`${fifo}-out`, `${fifo}-err`]);
      const out = openReader(`${fifo}-out`);
      const err = openReader(`${fifo}-err`);
      err.resume();
      await ctr.tasks.Create({ container_id: id, rootfs: mounts, stdin: '', stdout: `${fifo}-out`, stderr: `${fifo}-err`, terminal: false });
      const cleanup = async () => {
        await ctr.tasks.Kill({ container_id: id, signal: 9, all: true }).catch(() => undefined);
        await ctr.tasks.Wait({ container_id: id }).catch(() => undefined);
        await ctr.tasks.Delete({ container_id: id });
        await ctr.snapshots.Remove({ snapshotter: 'overlayfs', key: id });
        await ctr.containers.Delete({ id });
        out.destroy();
        err.destroy();
        fs.rmSync(`${fifo}-out`);
        fs.rmSync(`${fifo}-err`);
      };
      return { id, out, cleanup };
    };
    const viaFifo = async (sc: Scenario) => {
      const r = await raw(writer(sc.lineBytes, sc.fast));
      let got = 0;
      const done = new Promise<void>((resolve) => {
        r.out.on('data', (c: Buffer) => (got += c.length));
        r.out.on('end', () => resolve());
      });
      const cen = censusOf();
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await ctr.tasks.Start({ container_id: r.id });
      await done;
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      cpuOf(sc, 'raw').push(cpuSeconds(cpu0));
      const c = cen.stop();
      // the raw reader is this process's main thread
      for (const [from, to] of [['berthMain', 'rawReader'], ['berthMainSysS', 'rawReaderSysS'], ['berthMainWaitS', 'rawReaderWaitS']]) {
        if (c[from] !== undefined) c[to] = c[from];
        delete c[from];
      }
      (census[`raw ${sc.key}`] ??= []).push(c);
      await r.cleanup();
      if (got !== BYTES) throw new Error(`fifo returned ${got} bytes`);
      return BYTES / 1e6 / s;
    };
    const logsMBs: Record<string, number[]> = {};
    const fifoMBs: Record<string, number[]> = {};
    for (let i = 0; i < (process.env.BENCH_SKIP_LOGS ? 0 : runs); i++)
      for (const sc of SCENARIOS.filter((x) => !process.env.BENCH_SCENARIO || x.key === process.env.BENCH_SCENARIO)) {
        (logsMBs[sc.key] ??= []).push(await viaLogs(sc));
        (fifoMBs[sc.key] ??= []).push(await viaFifo(sc));
      }
    const logsSummary = Object.fromEntries(
      SCENARIOS.filter((sc) => logsMBs[sc.key]).map((sc) => {
        const berth = median(logsMBs[sc.key]);
        const rawMBs = median(fifoMBs[sc.key]);
        const summary = {
          lineBytes: sc.lineBytes,
          writer: sc.fast ? '64 KiB writes' : 'yes | head',
          berthLogsMBps: +berth.toFixed(0),
          rawFifoMBps: +rawMBs.toFixed(0),
          berthOverRaw: +(berth / rawMBs).toFixed(2),
          readBackMBps: +median(readBackMBs[sc.key]).toFixed(0),
          rawFileReadMBps: +median(rawFileMBs[sc.key]).toFixed(0),
          berthCpuS: +median(cpuOf(sc, 'berth')).toFixed(2),
          rawReaderCpuS: +median(cpuOf(sc, 'raw')).toFixed(2),
          cpuMsPerMB: perMB(census, sc.key),
        };
        return [sc.key, summary];
      }),
    );
    // CPU seconds per group (medians over the runs), with the machine's busy share of its cores: a ratio under the
    // goal with busyOfCores near 1 is a machine that had no more to give.
    const cpuCensus = Object.fromEntries(Object.entries(census).map(([k, v]) => [k, medianCensus(v)]));
    const load = { before: loadBefore, after: os.loadavg().map((x) => +x.toFixed(2)) };
    const logsGoals = { berthOverRaw: '>= 0.9 (63- and 1000-byte lines)', berthLogsMBps: '>= 250 (63-byte lines)', readBackMBps: '>= 400 (short lines)' };
    if (process.env.BENCH_ONLY_LOGS) return console.log(JSON.stringify({ runs, load, ...logsSummary, logsMBs, fifoMBs, readBackMBs, rawFileMBs, goals: logsGoals, cpuCensus }, null, 2));
    // (b) exec start
    const box = await create({ Cmd: ['/bin/busybox', 'sleep', '600'] });
    await request(socket, 'POST', `/v1.24/containers/${box}/start`);
    const rawBox = await raw(['/bin/busybox', 'sleep', '600']);
    rawBox.out.resume();
    await ctr.tasks.Start({ container_id: rawBox.id });
    // The process berth runs for the same exec (the engine's default capabilities: setting them costs runc ~8 ms,
    // which is no overhead of berth's); no stdio, as berth's detached exec has none.
    const caps = generateSpec({ id: 'caps', config: {}, hostConfig: {}, user: { uid: 0, gid: 0, additionalGids: [0] }, cgroupParent: '/', mounts: [], hostname: 'x', seccompAvailable: true, devices: [], blockDevices: {} }).process.capabilities;
    const rawSpec = { terminal: false, user: { uid: 0, gid: 0, additionalGids: [0] }, args: ['/bin/busybox', 'true'], env: ['PATH=/bin'], cwd: '/', capabilities: caps, oomScoreAdj: 0 };
    const execBerth: number[] = [];
    const execRaw: number[] = [];
    const execRawOnBox: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = process.hrtime.bigint();
      const e = (await request(socket, 'POST', `/v1.24/containers/${box}/exec`, { body: { Cmd: ['/bin/busybox', 'true'] } })).json().Id;
      await request(socket, 'POST', `/v1.24/exec/${e}/start`, { body: { Detach: true } });
      execBerth.push(Number(process.hrtime.bigint() - t0) / 1e6);
      // (untimed) let it finish, so that its clean-up does not overlap the next measurements
      while ((await request(socket, 'GET', `/v1.24/exec/${e}/json`)).json().Running) await new Promise((r) => setTimeout(r, 2));
      // the raw calls on berth's own container: what runc costs there, without berth's API
      const t2 = process.hrtime.bigint();
      await ctr.tasks.Exec({ container_id: box, exec_id: `y${i}`, stdin: '', stdout: '', stderr: '', terminal: false, spec: packJSON(OCI_PROCESS_URL, rawSpec) });
      const waitedB = ctr.tasks.Wait({ container_id: box, exec_id: `y${i}` });
      await ctr.tasks.Start({ container_id: box, exec_id: `y${i}` });
      execRawOnBox.push(Number(process.hrtime.bigint() - t2) / 1e6);
      await waitedB;
      await ctr.tasks.DeleteProcess({ container_id: box, exec_id: `y${i}` });
      const execId = `x${i}`;
      const t1 = process.hrtime.bigint();
      await ctr.tasks.Exec({ container_id: rawBox.id, exec_id: execId, stdin: '', stdout: '', stderr: '', terminal: false, spec: packJSON(OCI_PROCESS_URL, rawSpec) });
      const waited = ctr.tasks.Wait({ container_id: rawBox.id, exec_id: execId });
      await ctr.tasks.Start({ container_id: rawBox.id, exec_id: execId });
      execRaw.push(Number(process.hrtime.bigint() - t1) / 1e6);
      await waited;
      await ctr.tasks.DeleteProcess({ container_id: rawBox.id, exec_id: execId });
    }
    await rawBox.cleanup();
    await request(socket, 'DELETE', `/v1.24/containers/${box}?force=1`);

    // (c) attach stdin → cat → stdout
    const ATT = 64 << 20;
    const cat = await create({ Cmd: ['/bin/busybox', 'cat'], OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true });
    const s = net.connect(socket);
    s.write(`POST /v1.24/containers/${cat}/attach?stream=1&stdin=1&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n`);
    let headerDone = false;
    let rest = Buffer.alloc(0);
    const payload = new Promise<number>((resolve) => {
      let pending = Buffer.alloc(0);
      let need = 0;
      let total = 0;
      const feed = (c: Buffer) => {
        let buf = pending.length ? Buffer.concat([pending, c]) : c;
        for (;;) {
          if (need > 0) {
            const take = Math.min(need, buf.length);
            total += take;
            need -= take;
            buf = buf.subarray(take);
            if (need > 0) break;
          }
          if (buf.length < 8) break;
          need = buf.readUInt32BE(4);
          buf = buf.subarray(8);
        }
        pending = Buffer.from(buf);
      };
      s.on('data', (c: Buffer) => {
        if (!headerDone) {
          rest = Buffer.concat([rest, c]);
          const i = rest.indexOf('\r\n\r\n');
          if (i < 0) return;
          headerDone = true;
          feed(rest.subarray(i + 4));
          return;
        }
        feed(c);
      });
      s.on('end', () => resolve(total));
    });
    await new Promise((r) => setTimeout(r, 100));
    await request(socket, 'POST', `/v1.24/containers/${cat}/start`);
    const chunk = crypto.randomBytes(1 << 20);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 64; i++) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
    s.end();
    const got = await payload;
    const attachMBs = ATT / 1e6 / (Number(process.hrtime.bigint() - t0) / 1e9);
    if (got !== ATT) throw new Error(`attach returned ${got} bytes`);
    await request(socket, 'DELETE', `/v1.24/containers/${cat}?force=1`);

    console.log(
      JSON.stringify(
        {
          runs,
          ...logsSummary,
          execStartMs: { berth: +median(execBerth).toFixed(2), raw: +median(execRaw).toFixed(2), ratio: +(median(execBerth) / median(execRaw)).toFixed(2), rawOnBerthsContainer: +median(execRawOnBox).toFixed(2) },
          attachCat64MiB: { MBps: +attachMBs.toFixed(0) },
          load,
          goals: { ...logsGoals, execRatio: '<= 1.3' },
          cpuCensus,
        },
        null,
        2,
      ),
    );
  } finally {
    await daemon.close();
    await cleanupNamespace(ctr.withNamespace(ns));
    // (its default bridge and the bridge's NAT rules too: a bench leaves nothing on the host)
    await removeScratch({ ctdPid: ctd.pid, bridges: [{ name: 'bbst0', subnet: '10.253.252.0/24' }], dir });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
