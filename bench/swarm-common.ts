// What the swarm benchmarks share: polling, a private reference dockerd on this host, and the teardown of berth
// nodes, dockerds, the private containerd and the scratch folder.
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';
import type { SwarmNode } from '../test/helpers/swarm-node';

export async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 20): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await fn().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

export const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;
export const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** A reference engine of its own (--bridge=none --iptables=false) on the private containerd. */
export function startDockerd(dir: string, ctd: string): Promise<{ child: ChildProcess; socket: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const socket = path.join(dir, 'docker.sock');
  const log = fs.openSync(path.join(dir, 'dockerd.log'), 'a');
  const child = spawn('dockerd', ['--data-root', path.join(dir, 'docker'), '--exec-root', path.join(dir, 'exec'), '--pidfile', path.join(dir, 'docker.pid'), '-H', `unix://${socket}`, '--containerd', ctd, '--bridge=none', '--iptables=false'], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  return until('dockerd', async () => (await request(socket, 'GET', '/_ping')).status === 200, 60_000).then(() => ({ child, socket }));
}

/** Stops everything a benchmark started (whatever state it is in). */
export async function teardown(nodes: SwarmNode[], dockerds: ChildProcess[], ctd: { pid: number; dir: string }, scratch: string): Promise<void> {
  await Promise.all(nodes.map((n) => n.close()));
  for (const d of dockerds) d.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 3000));
  for (const d of dockerds) d.kill('SIGKILL');
  process.kill(ctd.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  // the reference's swarm leaves network namespaces mounted under its exec root
  for (const line of fs.readFileSync('/proc/mounts', 'utf8').split('\n')) {
    const where = line.split(' ')[1];
    if (where?.startsWith(scratch)) execFileSync('umount', ['-l', where]);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(ctd.dir, { recursive: true, force: true });
}
