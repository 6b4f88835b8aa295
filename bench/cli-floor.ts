// The CLI floor (issue 20, goal 2): what the docker CLI alone costs for `docker run --rm --network none busybox true`
// on this machine. A canned engine on a unix socket answers, at once, the exact requests the CLI sends at the API
// version it negotiates with berth (1.24), with berth's answers as recorded once through a proxy (2026-11-26, berth
// 29a7d81, docker CLI 28.2.2):
//   HEAD /_ping → 200 (Api-Version: 1.24); POST /containers/create → 201 {"Id","Warnings":[]};
//   POST /containers/ID/attach?stderr=1&stdout=1&stream=1 (Upgrade: tcp) → 101 UPGRADED, the raw stream;
//   GET /events?filters={"container":{ID},"type":{"container"}} → 200, chunked;
//   POST /containers/ID/start → 204, then on /events: start, die (exitCode 0), and the attach stream ends;
//   DELETE /containers/ID?v=1 (the CLI's own removal below API 1.25, sent on die) → 204, then destroy on /events
//   (the CLI is done at destroy).
// Anything else is answered 404 and counted (`unexpected`): a CLI that asks something new fails the floor's runs.
// bench/cli.ts runs it interleaved with berth, ctr and the reference (kind cliFloor); alone:
// Run: npm run bench:cli-floor [samples]
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Duplex } from 'node:stream';

const HEAD = { 'Api-Version': '1.24', 'Docker-Experimental': 'false', Ostype: 'linux', Server: 'berth/0.1.0 (linux)' };

interface Run {
  attach?: Duplex;
  events?: http.ServerResponse;
  started?: boolean;
}

export interface CliFloor {
  socket: string;
  /** Requests the floor has no answer for (method and path). */
  unexpected: string[];
  close(): Promise<void>;
}

export async function startCliFloor(socket: string): Promise<CliFloor> {
  const runs = new Map<string, Run>();
  const unexpected: string[] = [];
  const run = (id: string) => {
    let r = runs.get(id);
    if (!r) runs.set(id, (r = {}));
    return r;
  };
  const event = (id: string, action: string, extra: Record<string, string> = {}) => {
    const ns = BigInt(Date.now()) * 1_000_000n;
    const attrs = { image: 'busybox', name: 'floor_run', ...extra };
    return JSON.stringify({ status: action, id, from: 'busybox', Type: 'container', Action: action, Actor: { ID: id, Attributes: attrs }, scope: 'local', time: Number(ns / 1_000_000_000n), timeNano: Number(ns) }) + '\n';
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor');
    const p = url.pathname.replace(/^\/v1\.\d+/, '');
    const m = /^\/containers\/([0-9a-f]{64})\/(start)$/.exec(p) ?? /^\/containers\/([0-9a-f]{64})()$/.exec(p);
    req.resume();
    req.on('end', () => {
      if (p === '/_ping') {
        res.writeHead(200, { ...HEAD, 'Cache-Control': 'no-cache, no-store, must-revalidate', Pragma: 'no-cache', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' });
        res.end(req.method === 'HEAD' ? undefined : 'OK');
      } else if (req.method === 'POST' && p === '/containers/create') {
        const body = JSON.stringify({ Id: crypto.randomBytes(32).toString('hex'), Warnings: [] }) + '\n';
        res.writeHead(201, { ...HEAD, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
        res.end(body);
      } else if (req.method === 'GET' && p === '/events') {
        const id = Object.keys((JSON.parse(url.searchParams.get('filters') ?? '{}') as { container?: Record<string, boolean> }).container ?? {})[0] ?? '';
        res.writeHead(200, { ...HEAD, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
        const r = run(id);
        r.events = res;
        res.on('close', () => runs.delete(id));
        if (r.started) res.write(event(id, 'start') + event(id, 'die', { exitCode: '0' }));
      } else if (req.method === 'POST' && m?.[2] === 'start') {
        res.writeHead(204, HEAD);
        res.end();
        const id = m[1];
        const r = run(id);
        r.started = true;
        // (as berth: the events after the answer; the run is over at once, its attach stream ends)
        r.events?.write(event(id, 'start') + event(id, 'die', { exitCode: '0' }));
        r.attach?.end();
      } else if (req.method === 'DELETE' && m && !m[2]) {
        res.writeHead(204, HEAD);
        res.end();
        runs.get(m[1])?.events?.write(event(m[1], 'destroy'));
      } else {
        unexpected.push(`${req.method} ${p}`);
        res.writeHead(404, { ...HEAD, 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: `the CLI floor has no answer for ${req.method} ${p}` }) + '\n');
      }
    });
  });
  server.on('upgrade', (req: http.IncomingMessage, sock: Duplex) => {
    const p = new URL(req.url ?? '/', 'http://floor').pathname.replace(/^\/v1\.\d+/, '');
    const m = /^\/containers\/([0-9a-f]{64})\/attach$/.exec(p);
    if (!m) {
      unexpected.push(`${req.method} ${p} (upgrade)`);
      sock.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sock.on('error', () => undefined);
    sock.on('end', () => undefined); // (the CLI closes its write side: nothing to send the container)
    sock.write('HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    const r = run(m[1]);
    if (r.started) sock.end();
    else r.attach = sock;
  });
  server.keepAliveTimeout = 0; // (berth's answers carry no Keep-Alive header either)
  fs.rmSync(socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  return {
    socket,
    unexpected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of runs.values()) {
          r.events?.end();
          r.attach?.destroy();
        }
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn('docker', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`docker ${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 30);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-cli-floor-'));
  const floor = await startCliFloor(path.join(dir, 'floor.sock'));
  try {
    const env = { ...process.env, DOCKER_HOST: `unix://${floor.socket}` };
    const args = ['run', '--rm', '--network', 'none', 'busybox', 'true'];
    await timed(args, env);
    const t: number[] = [];
    for (let i = 0; i < samples; i++) t.push(await timed(args, env));
    t.sort((a, b) => a - b);
    console.log(JSON.stringify({ samples, load: os.loadavg().map((x) => +x.toFixed(2)), floorMs: { median: +t[Math.floor(t.length / 2)].toFixed(1), min: +t[0].toFixed(1), max: +t[t.length - 1].toFixed(1) }, unexpected: floor.unexpected }, null, 2));
  } finally {
    await floor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
