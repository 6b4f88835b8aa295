// Runs the real bin/berthd (needs the build) as operators do: flags, a config file, signals. Each launcher has its own
// data root, containerd namespace, bridge and cgroup parent; its log is kept for assertions.
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Containerd } from '../../src/containerd/client';
import { containerdAddress, request } from './berth';
import { cleanupNamespace } from './cleanup';
import { recordTestBerth, removeBerthBridges } from './test-berths';

const ROOT = path.resolve(__dirname, '../..');

export interface Berthd {
  child: ChildProcess;
  log: () => string;
}

export const exited = (c: ChildProcess): Promise<number | null> => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

export function berthdLauncher(o: { dir: string; namespace: string; bridge: string; subnet: string }) {
  const children: ChildProcess[] = [];
  const unrecord = recordTestBerth({ dir: o.dir, dataRoot: path.join(o.dir, 'data'), bridge: o.bridge, subnet: o.subnet });
  /** Starts berthd (through `wrap` if given) and waits for `/_ping` on `socket`; without a socket, returns at once. */
  async function berthd(args: string[], opt: { socket?: string; wrap?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Berthd> {
    const logPath = path.join(o.dir, `berthd-${children.length}.log`);
    const log = fs.openSync(logPath, 'w');
    const full = [path.join(ROOT, 'bin/berthd'), ...args, '--data-root', path.join(o.dir, 'data'), '--exec-root', path.join(o.dir, 'exec'), '--containerd', containerdAddress(), '--namespace', o.namespace, '--bridge-name', o.bridge, '--bridge-subnet', o.subnet, '--cgroup-parent', '/' + o.namespace];
    const cmd = [...(opt.wrap ?? []), ...full];
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', log, log], env: { ...process.env, ...opt.env } });
    fs.closeSync(log);
    children.push(child);
    const b = { child, log: () => fs.readFileSync(logPath, 'utf8') };
    if (!opt.socket) return b;
    const t0 = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`berthd exited ${child.exitCode}: ${b.log().slice(-2000)}`);
      if (await request(opt.socket, 'GET', '/_ping').then((r) => r.status === 200, () => false)) return b;
      if (Date.now() - t0 > 30_000) throw new Error('berthd did not answer');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  async function stop(b: Berthd): Promise<void> {
    b.child.kill('SIGTERM');
    await exited(b.child);
  }
  /** afterAll: kills what still runs, empties the namespace, removes the default bridge's rules and link (berthd
   * installs the rules at start, whether or not a container made the bridge) and the folder. */
  async function cleanup(): Promise<void> {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    const ctr = new Containerd({ address: containerdAddress(), namespace: o.namespace });
    await cleanupNamespace(ctr);
    ctr.close();
    await removeBerthBridges(path.join(o.dir, 'data'), o.bridge, o.subnet);
    fs.rmSync(o.dir, { recursive: true, force: true });
    unrecord();
  }
  return { berthd, stop, exited, children, cleanup };
}
