// A `die` to 100 GET /events subscribers, measured the same way by bench:scale and bench/scale-ab.ts (issue 20,
// goal 4): the subscribers in another process (each receipt's wall-clock ns), a bare Node server's fan-out of the
// same line to them (the limit for the delivery), and the kills with their split: the process's exit (containerd's
// exited_at, which both daemons report as State.FinishedAt) → the daemon's die (the event's timeNano) → receipt.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const r1 = (x: number) => +x.toFixed(1);

/** Wall-clock ns, comparable across processes. */
export const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

const SUBSCRIBERS = `
const http = require('node:http');
const [socket, n] = process.argv.slice(1);
const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
let open = 0;
for (let i = 0; i < Number(n); i++) {
  const req = http.request({ socketPath: socket, path: '/v1.24/events?filters=' + encodeURIComponent(JSON.stringify({ event: { die: true } })), agent: false }, (res) => {
    let buf = '';
    res.on('data', (c) => {
      const at = nowNs();
      buf += c.toString();
      let j;
      while ((j = buf.indexOf('\\n')) >= 0) {
        const line = buf.slice(0, j);
        buf = buf.slice(j + 1);
        if (line) {
          const e = JSON.parse(line);
          process.stdout.write(e.id + ' ' + at + ' ' + BigInt(e.timeNano) + '\\n');
        }
      }
    });
    if (++open === Number(n)) process.stdout.write('ready\\n');
  });
  req.on('error', () => {});
  req.end();
}
`;

/**
 * The fan-out's limit on this machine at this moment: a bare Node HTTP server (another process) writing one event
 * line to 100 subscribers (the same subscribers' process, over HTTP on a unix socket, as the daemon's); each line
 * on stdin is an id to announce. The line is the daemon's own die event (argv[2], as its /events replays it:
 * the same bytes, attributes included) with that id and the time of the write; the server serialises it once per
 * event and writes it to each response, as berth does.
 */
const PLAIN_FANOUT = `
const http = require('node:http');
const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
const subs = [];
const template = JSON.parse(process.argv[2]);
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  subs.push(res);
}).listen(process.argv[1], () => process.stdout.write('listening\\n'));
process.stdin.on('data', (d) => {
  for (const id of d.toString().split('\\n').filter(Boolean)) {
    const t = nowNs();
    const e = { ...template, id, time: Number(t / 1000000000n), timeNano: Number(t) };
    if (e.Actor) e.Actor = { ...e.Actor, ID: id };
    const l = JSON.stringify(e) + '\\n';
    for (const r of subs) r.write(l);
  }
});
`;

/** The plain fan-out's median delay to 100 subscribers (ms), median over 5 events; `dieLine`: the daemon's die event. */
export async function plainFanout(dir: string, dieLine: string): Promise<number> {
  const sock = path.join(dir, 'plain.sock');
  fs.rmSync(sock, { force: true }); // the one of the side measured before
  const server = spawn(process.execPath, ['-e', PLAIN_FANOUT, sock, dieLine], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout!.once('data', () => resolve());
      server.once('exit', (code) => reject(new Error(`the plain fan-out server exited (${code})`)));
    });
    const subs = await subscribers(sock);
    const out: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = `plain${i}`;
      server.stdin!.write(id + '\n');
      const r = await subs.receipts(id, 100);
      out.push(median(r.at.map((at) => Number(at - r.published) / 1e6)));
      await new Promise((r) => setTimeout(r, 200));
    }
    subs.close();
    return median(out);
  } finally {
    server.kill();
  }
}

/** An RFC 3339 time with up to 9 fractional digits, as wall-clock ns. */
export function rfc3339Ns(t: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(t);
  if (!m) throw new Error(`not a time: ${t}`);
  return BigInt(Date.parse(m[1] + m[3])) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** 100 /events subscribers in another process; each receipt of `id`'s die (wall-clock ns) and the event's timeNano. */
export async function subscribers(sock: string): Promise<{ receipts(id: string, n: number): Promise<{ at: bigint[]; published: bigint }>; close(): void }> {
  const child = spawn(process.execPath, ['-e', SUBSCRIBERS, sock, '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const seen = new Map<string, bigint[]>();
  const published = new Map<string, bigint>();
  let buf = '';
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString();
    let j;
    while ((j = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, j);
      buf = buf.slice(j + 1);
      if (line === 'ready') ready();
      else {
        const [id, at, timeNano] = line.split(' ');
        seen.set(id, [...(seen.get(id) ?? []), BigInt(at)]);
        published.set(id, BigInt(timeNano));
      }
    }
  });
  await isReady;
  return {
    receipts: async (id, n) => {
      const deadline = Date.now() + 20_000;
      while ((seen.get(id)?.length ?? 0) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return { at: seen.get(id) ?? [], published: published.get(id) ?? 0n };
    },
    close: () => child.kill(),
  };
}

/** One kill's figures (ms). */
export interface DieSample {
  /** the median over the 100 subscribers, from the exit */
  fromExit: number;
  /** the latest subscriber, from the exit */
  maxFromExit: number;
  exitToDie: number;
  dieToReceipt: number;
  fromKill: number;
  /** containerd's own delivery of /tasks/exit to a plain gRPC subscriber (when known) */
  exitToEvent?: number;
}

/**
 * Kills `kills` of `ids` (taken from its end) one at a time with 100 subscribers listening; each kill's figures.
 * `exitEventAt`: when a plain gRPC subscriber of the same containerd got the container's /tasks/exit.
 */
export async function killsToSubscribers(
  o: { name: string; sock: string; ids: string[]; kills: number; kill: (id: string) => Promise<void>; exitEventAt?: (id: string) => bigint | undefined; pauseMs?: number },
): Promise<{ samples: DieSample[]; lastKilled: string; firstKillNs: bigint }> {
  const subs = await subscribers(o.sock);
  const samples: DieSample[] = [];
  let lastKilled = '';
  let firstKillNs = 0n;
  try {
    for (let i = 0; i < o.kills; i++) {
      const id = o.ids.pop()!;
      const t = nowNs();
      if (!firstKillNs) firstKillNs = t;
      lastKilled = id;
      await o.kill(id);
      const r = await subs.receipts(id, 100);
      if (r.at.length < 100) throw new Error(`${o.name}: ${r.at.length} subscribers saw die`);
      const exited = rfc3339Ns((await request(o.sock, 'GET', `/v1.24/containers/${id}/json`)).json().State.FinishedAt);
      const d = r.at.map((at) => Number(at - exited) / 1e6);
      const ev = o.exitEventAt?.(id);
      samples.push({
        fromExit: median(d),
        maxFromExit: Math.max(...d),
        exitToDie: Number(r.published - exited) / 1e6,
        dieToReceipt: median(r.at.map((at) => Number(at - r.published) / 1e6)),
        fromKill: median(r.at.map((at) => Number(at - t) / 1e6)),
        ...(ev ? { exitToEvent: Number(ev - exited) / 1e6 } : {}),
      });
      // (with a pause, the next kill finds the daemon settled: the exit's cleanup, the task's deletion and the save done)
      if (o.pauseMs) await new Promise((r) => setTimeout(r, o.pauseMs));
    }
  } finally {
    subs.close();
  }
  return { samples, lastKilled, firstKillNs };
}

/** The daemon's die event for `id` as its subscribers got it (to be written by the plain fan-out). */
export async function dieLineOf(sock: string, id: string, sinceNs: bigint): Promise<string> {
  const since = Math.floor(Number(sinceNs) / 1e9) - 1;
  const line = (await request(sock, 'GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent(JSON.stringify({ event: { die: true }, container: { [id]: true } }))}`)).text.trim().split('\n').pop()!;
  if (!line) throw new Error(`no die event of ${id} to copy`);
  return line;
}

/** The medians of kills' samples, in bench:scale's JSON shape. */
export function dieSummary(samples: DieSample[], plain?: number): Record<string, unknown> {
  const ev = samples.flatMap((s) => (s.exitToEvent === undefined ? [] : [s.exitToEvent]));
  return {
    fromExit: { median: r1(median(samples.map((s) => s.fromExit))), max: r1(median(samples.map((s) => s.maxFromExit))) },
    exitToDie: r1(median(samples.map((s) => s.exitToDie))),
    // the limit for exitToDie: containerd's own delivery of /tasks/exit to a plain gRPC subscriber
    ...(ev.length ? { exitToContainerdEventAtAPlainSubscriber: r1(median(ev)) } : {}),
    dieToReceipt: r1(median(samples.map((s) => s.dieToReceipt))),
    // the limit for dieToReceipt: a bare Node server's write of one line to 100 subscribers, just after
    ...(plain !== undefined ? { plainNodeFanout: r1(plain) } : {}),
    fromKillRequest: r1(median(samples.map((s) => s.fromKill))),
  };
}
