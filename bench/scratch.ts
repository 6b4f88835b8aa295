// A bench's scratch berth taken down: the berthd it ran stopped and waited for, its private containerd stopped, the
// bridges it made and their iptables rules removed, its folder gone (each bench empties its containerd namespaces
// first, while that containerd still runs).
import { ChildProcess, execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { bridgeRules, removeRules } from '../src/network/bridge';
import { exited } from '../test/helpers/berthd-process';

const execFileP = promisify(execFile);

/** SIGTERM, then waits for the exit. */
export async function stopBerthd(child: ChildProcess | undefined): Promise<void> {
  if (!child) return;
  child.kill('SIGTERM');
  await exited(child);
}

export async function removeScratch(o: { ctdPid: number | undefined; bridges: { name: string; subnet: string }[]; dir: string }): Promise<void> {
  if (o.ctdPid) process.kill(o.ctdPid, 'SIGTERM');
  for (const b of o.bridges) {
    await execFileP('ip', ['link', 'delete', b.name]).catch(() => undefined);
    await removeRules(bridgeRules(b.name, b.subnet, false));
  }
  fs.rmSync(o.dir, { recursive: true, force: true });
}

/**
 * The node flags bin/berthd starts berthd with (its `exec node ...` line), for the benches that start berthd's script
 * themselves (berthdScript; to add a trace or a profile): they measure berthd as it is launched.
 */
export function berthdNodeFlags(root: string): string[] {
  const launcher = fs.readFileSync(`${root}/bin/berthd`, 'utf8');
  const line = launcher.split('\n').find((l) => l.startsWith('exec node '));
  if (!line) throw new Error('bin/berthd: no exec node line');
  return line.slice('exec node '.length).split(/\s+/).filter((w) => w.startsWith('--'));
}

/**
 * The script a bench starts berthd from (after berthdNodeFlags): the bundle bin/berthd runs (dist/bundle/berthd.js,
 * scripts/bundle.js), or with `modules` tsc's dist/src/main.js, one file per module, for a trace (bench/trace.ts
 * hooks berth's modules) or a CPU profile summed by origin (bench/trace-summary.ts tells the origins by file).
 */
export function berthdScript(root: string, modules = false): string {
  return `${root}/${modules ? 'dist/src/main.js' : 'dist/bundle/berthd.js'}`;
}
