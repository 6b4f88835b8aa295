// berth's part of `logs -f` alone (a script, not a test): a writer process fills a FIFO in 32 KiB writes (as
// containerd's shim copies a container's output), berth's capture thread reads it into a json-file log, and a
// follower's batches go through followLogs to an HTTP response read by a client process that parses every frame
// (as bench:streams' client). No containerd, no container: the CPU per MB of berth's threads (capture, main,
// others), the client's and the writer's, with nothing else of the machine in it.
// Run: node dist/bench/capture-alone.js [MiB] [lineBytes] [rounds]   (WRITE_SIZE=32768 by default)
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogCaptureThread } from '../src/services/log-capture';
import { followLogs } from '../src/services/logs-follow';
import { LogReaderThread } from '../src/services/logs';
import { openReadFd } from '../src/runtime/fifo';
import { countFramed } from './framed';
import { syscallsOf } from './cpu-census';

const TICK = 100;

function threadsCpu(pid: number): Map<string, { s: number; sys: number }> {
  const out = new Map<string, { s: number; sys: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let t: string;
    try {
      t = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = t.lastIndexOf(')');
    const comm = t.slice(t.indexOf('(') + 1, close);
    const f = t.slice(close + 2).split(' ');
    const name = Number(tid) === pid ? 'main' : comm.startsWith('berth-') ? comm.slice(6) : 'other';
    const prev = out.get(name) ?? { s: 0, sys: 0 };
    out.set(name, { s: prev.s + (Number(f[11]) + Number(f[12])) / TICK, sys: prev.sys + Number(f[12]) / TICK });
  }
  return out;
}

/** The capture thread's read and write system calls so far (its /proc io counters). */
function captureSyscalls(pid: number): { reads: number; writes: number } {
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== 'berth-capture') continue;
      return syscallsOf(fs.readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8'));
    } catch {
      /* gone */
    }
  }
  return { reads: 0, writes: 0 };
}

function procCpu(pid: number): { s: number; sys: number } {
  const t = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
  // utime stime cutime cstime
  return { s: (Number(f[11]) + Number(f[12])) / TICK, sys: Number(f[12]) / TICK };
}


async function clientMain(socketPath: string): Promise<void> {
  const n = await new Promise<number>((resolve, reject) => {
    http.get({ socketPath, path: '/logs', agent: false }, (res) => countFramed(res).then(resolve, reject)).on('error', reject);
  });
  const c = procCpu(process.pid);
  process.stdout.write(JSON.stringify({ n, ...c }) + '\n');
}

/** The writer: `bytes` of `lineBytes`-byte lines to fd 1 (the FIFO) in `writeSize`-byte writes, from one buffer. */
function writerMain(bytes: number, lineBytes: number, writeSize: number): void {
  const line = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.repeat(Math.ceil(lineBytes / 62)).slice(0, lineBytes - 1) + '\n');
  const b = Buffer.alloc(writeSize + lineBytes);
  for (let i = 0; i < b.length; i++) b[i] = line[i % lineBytes];
  for (let done = 0; done < bytes; ) done += fs.writeSync(1, b, done % lineBytes, Math.min(writeSize, bytes - done));
}

async function round(dir: string, bytes: number, lineBytes: number, writeSize: number, capture: LogCaptureThread, reader: LogReaderThread, k: number): Promise<Record<string, number>> {
  const fifo = path.join(dir, `out-${k}`);
  execFileSync('mkfifo', [fifo]);
  const logFile = path.join(dir, `log-${k}`, 'x-json.log');
  const fd = openReadFd(fifo);
  let doneResolve!: () => void;
  const done = new Promise<void>((r) => (doneResolve = r));
  const cap = capture.start({ stdout: fd }, logFile, undefined, { output: () => undefined, done: () => doneResolve() });
  let ended = false;
  void done.then(() => (ended = true));
  const sock = path.join(dir, `s-${k}.sock`);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { Connection: 'close' });
    res.flushHeaders();
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const drained = () => new Promise<void>((r) => (ac.signal.aborted ? r() : res.once('drain', () => r())));
    const sink = { write: (b: Buffer, d?: () => void) => res.write(b, d), drained, signal: ac.signal };
    const o = { stdout: true, stderr: true };
    const fmt = { framed: true, timestamps: false, details: false };
    const f = followLogs(o, fmt, { size: () => (ended ? undefined : cap.size()), subscribe: (so, sf, onBatch, onEnd) => (void done.then(onEnd), cap.subscribe(so, sf, onBatch)), open: () => cap.openLog() }, reader.stream.bind(reader), sink);
    void (f ?? Promise.resolve()).then(() => res.end());
  });
  await new Promise<void>((r) => server.listen(sock, r));
  const client = spawn(process.execPath, [__filename, '--client', sock], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  client.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const clientDone = new Promise<void>((r) => client.on('exit', () => r()));
  // the follower subscribes before the writer starts
  await new Promise((r) => setTimeout(r, 300));
  const t0 = threadsCpu(process.pid);
  const io0 = captureSyscalls(process.pid);
  const start = process.hrtime.bigint();
  const wfd = fs.openSync(fifo, fs.constants.O_WRONLY);
  const writer = spawn(process.execPath, [__filename, '--writer', String(bytes), String(lineBytes), String(writeSize)], { stdio: ['ignore', wfd, 'inherit'] });
  fs.closeSync(wfd);
  let wcpu = { s: 0, sys: 0 };
  const wpid = writer.pid!;
  const poll = setInterval(() => {
    try {
      wcpu = procCpu(wpid);
    } catch {
      /* gone */
    }
  }, 20);
  const writerExit = new Promise<void>((r) => writer.on('exit', () => r()));
  await clientDone;
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  await writerExit;
  clearInterval(poll);
  const t1 = threadsCpu(process.pid);
  const io1 = captureSyscalls(process.pid);
  server.close();
  const c = JSON.parse(out) as { n: number; s: number; sys: number };
  if (c.n !== bytes) throw new Error(`client got ${c.n} of ${bytes}`);
  const mb = bytes / 1e6;
  const r: Record<string, number> = { MBps: +(mb / wall).toFixed(0) };
  for (const [name, v] of t1) {
    const a = t0.get(name) ?? { s: 0, sys: 0 };
    r[`${name}User`] = +(((v.s - a.s - (v.sys - a.sys)) * 1000) / mb).toFixed(2);
    r[`${name}Kernel`] = +((((v.sys - a.sys) * 1000) / mb).toFixed(2));
  }
  r.clientUser = +((((c.s - c.sys) * 1000) / mb).toFixed(2));
  r.clientKernel = +(((c.sys * 1000) / mb).toFixed(2));
  r.writer = +(((wcpu.s * 1000) / mb).toFixed(2));
  // the capture thread's reads of the FIFO (and writes of the log) per 256 MiB: each costs its JS, an encoding call and a write
  r.captureReadsPer256MiB = Math.round(((io1.reads - io0.reads) * (256 << 20)) / bytes);
  r.captureWritesPer256MiB = Math.round(((io1.writes - io0.writes) * (256 << 20)) / bytes);
  r.berth = +Object.entries(r).filter(([key]) => /^(main|capture|other|logread)(User|Kernel)$/.test(key)).reduce((a, [, v]) => a + v, 0).toFixed(2);
  fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  fs.rmSync(fifo, { force: true });
  return r;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--client') return clientMain(process.argv[3]);
  if (process.argv[2] === '--writer') return writerMain(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]));
  const mib = Number(process.argv[2] ?? 256);
  const lineBytes = Number(process.argv[3] ?? 63);
  const rounds = Number(process.argv[4] ?? 3);
  const writeSize = Number(process.env.WRITE_SIZE ?? 32768);
  const dir = fs.mkdtempSync(path.join(process.env.CAPTURE_DIR ?? os.tmpdir(), 'berth-capture-alone-'));
  const capture = new LogCaptureThread({ idleMs: 60_000 });
  const reader = new LogReaderThread();
  const load0 = os.loadavg()[0];
  const results: Record<string, number>[] = [];
  try {
    for (let k = 0; k < rounds; k++) results.push(await round(dir, mib << 20, lineBytes, writeSize, capture, reader, k));
  } finally {
    capture.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ mib, lineBytes, writeSize, load: [+load0.toFixed(2), +os.loadavg()[0].toFixed(2)], results }));
  process.exit(0);
}

void main();
