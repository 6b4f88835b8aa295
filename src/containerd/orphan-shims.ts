// Shims containerd has let go of. When the client that asked for a task's Create goes away mid-call (berthd
// SIGKILLed), containerd 1.6 cancels the Create and asks the new shim to delete the task, giving it 5 s. A shim still
// busy creating (opening the task's stdout FIFO, whose reader died with berthd) does not answer in time; containerd
// then forgets it, runs its own clean-up and removes the bundle, but the shim process stays, idle, for ever: nobody
// will ask it to shut down (four were found after a CI run of faults.test.ts). It is found here by its command line
// (`containerd-shim-runc-v2 -namespace NS -id ID -address ADDR`) and killed: berth owns its namespace, so a shim of
// it that containerd lists no task for, or whose bundle is gone, serves nothing.
import * as path from 'node:path';
import { childrenOf, eachProcess } from './procfs';

export interface ShimProcess {
  pid: number;
  id: string;
  namespace: string;
  /** containerd's socket, as the shim was given it */
  address: string;
  /** its working directory (the task's bundle) was removed: containerd has let go of it */
  bundleGone: boolean;
}

function flagValue(args: string[], name: string): string {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : '';
}

/**
 * The containerd v2 shims running (their daemons, not the short-lived `start`/`delete` calls), from `procRoot`. The
 * files are read off the main thread, a few at a time: with 1,000 containers there are over 2,000 processes to look
 * at, and read one by one on the main thread they held start-up and the later sweeps for a good part of a second.
 */
export async function listShims(procRoot = '/proc'): Promise<ShimProcess[]> {
  return eachProcess(async (p): Promise<ShimProcess | undefined> => {
    const args = (await p.read('cmdline')).split('\0').filter(Boolean);
    if (!args.length || !path.basename(args[0]).startsWith('containerd-shim')) return undefined;
    if (args.includes('start') || args.includes('delete')) return undefined;
    const id = flagValue(args, '-id');
    const namespace = flagValue(args, '-namespace');
    if (!id || !namespace) return undefined;
    const cwd = await p.readlink('cwd');
    // containerd removes a bundle by renaming it to `.<id>` first; the kernel marks a removed cwd `(deleted)`
    const bundleGone = cwd.endsWith(' (deleted)') || path.basename(cwd) === `.${id}`;
    return { pid: p.pid, id, namespace, address: flagValue(args, '-address'), bundleGone };
  }, procRoot);
}

const socketPath = (a: string) => path.resolve(a.replace(/^unix:\/\//, ''));

/**
 * The shims of `namespace` on the containerd at `address` that serve nothing: those whose bundle is gone, and, when
 * `taskIds` (containerd's task list) is given, those of no task in it. Only ask with `taskIds` when no task Create
 * of this namespace can be under way (at start-up, before berth serves): a Create's shim runs before its task is
 * listed.
 */
export function orphanShims(shims: ShimProcess[], o: { namespace: string; address: string; taskIds?: ReadonlySet<string> }): ShimProcess[] {
  const address = socketPath(o.address);
  return shims.filter((s) => s.namespace === o.namespace && socketPath(s.address) === address && (s.bundleGone || (o.taskIds !== undefined && !o.taskIds.has(s.id))));
}

/** Kills the orphaned shims (and what still runs under them); returns those it killed. */
export async function reapOrphanShims(o: { namespace: string; address: string; taskIds?: ReadonlySet<string>; procRoot?: string; kill?: (pid: number) => void }): Promise<ShimProcess[]> {
  const procRoot = o.procRoot ?? '/proc';
  const kill =
    o.kill ??
    ((pid: number) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    });
  const orphans = orphanShims(await listShims(procRoot), o);
  for (const s of orphans) {
    // (what still runs under it: a container's processes, reparented to the shim as their subreaper)
    for (const c of await childrenOf(s.pid, procRoot)) kill(c);
    kill(s.pid);
  }
  return orphans;
}
