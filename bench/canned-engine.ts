// A bare Node server (another process) standing in for the daemon where a bench measures the docker CLI's own cost
// (bench:scale, bench:scale-ab), and the small helpers the benches share (ping, pool).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';

/**
 * The CLI's own floor for `docker ps` and `docker stats --no-stream`: a bare Node server (another process) answering
 * what those commands ask with what the daemon measured answered just before, at once: /_ping and /version with its
 * API version, /events held open, GET /containers/json with the daemon's very list, and each container's stats with
 * the daemon's sample of one container (its name and id swapped in). Args: socket, a JSON file of those answers.
 */
const CANNED = `
const http = require('node:http');
const fs = require('node:fs');
const [sock, file] = process.argv.slice(1);
const a = JSON.parse(fs.readFileSync(file, 'utf8'));
const list = Buffer.from(a.list);
const version = Buffer.from(a.version);
const sample = JSON.parse(a.stats);
const stats = new Map();
for (const c of JSON.parse(a.list)) {
  const b = Buffer.from(JSON.stringify({ ...sample, name: c.Names[0], id: c.Id }) + '\\n');
  stats.set(c.Id, b);
  stats.set(c.Id.slice(0, 12), b);
}
const head = { 'Api-Version': a.apiVersion, Ostype: 'linux', 'Content-Type': 'application/json' };
http.createServer((req, res) => {
  const p = req.url.replace(/^\\/v[0-9.]+/, '').replace(/\\?.*/, '');
  if (p === '/_ping') {
    res.writeHead(200, { ...head, 'Content-Type': 'text/plain; charset=utf-8' });
    return res.end('OK');
  }
  if (p === '/version') return res.writeHead(200, head).end(version);
  if (p === '/containers/json') return res.writeHead(200, head).end(list);
  if (p === '/events') return res.writeHead(200, head).flushHeaders();
  const m = /^\\/containers\\/([^/]+)\\/stats$/.exec(p);
  const b = m && stats.get(m[1]);
  if (b) return res.writeHead(200, head).end(b);
  res.writeHead(404, head).end('{"message":"not canned"}\\n');
}).listen({ path: sock, backlog: 65535 }, () => process.stdout.write('listening\\n'));
`;

/** Starts the canned server with the daemon's answers; its socket and a stop function. */
export async function cannedServer(dir: string, sock: string): Promise<{ sock: string; stop(): void }> {
  const list = await request(sock, 'GET', '/v1.24/containers/json');
  const first = list.json()[0]?.Id;
  const version = await request(sock, 'GET', '/v1.24/version');
  const stats = await request(sock, 'GET', `/v1.24/containers/${first}/stats?stream=0`);
  const file = path.join(dir, 'canned.json');
  fs.writeFileSync(file, JSON.stringify({ list: list.text, version: version.text, stats: stats.text, apiVersion: String(version.headers['api-version'] ?? '1.24') }));
  const cs = path.join(dir, 'canned.sock');
  fs.rmSync(cs, { force: true });
  const server = spawn(process.execPath, ['-e', CANNED, cs, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.once('data', () => resolve());
    server.once('exit', (code) => reject(new Error(`the canned server exited (${code})`)));
  });
  return { sock: cs, stop: () => server.kill() };
}

/** Whether a daemon answers `GET /_ping` on `socket` with 200. */
export function ping(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const r = http.get({ socketPath: socket, path: '/_ping' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    r.on('error', () => resolve(false));
  });
}

/** `total` calls of `one(i)`, `parallel` at a time. */
export async function pool(total: number, parallel: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < total) await one(next++);
  }));
}
