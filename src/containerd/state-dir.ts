// containerd's state directory, where its v2 runtime keeps each task's bundle and mounts the task's root filesystem
// (`<state>/io.containerd.runtime.v2.task/<namespace>/<container id>/rootfs`). containerd's API does not tell it, so
// it is read from the containerd process serving the socket: its `--state` flag, else the `state` key of its
// configuration file, else containerd's default. Undefined when that process cannot be found (another pid namespace)
// or the directory it names does not hold the v2 runtime's folder in berth's view.
import * as fs from 'node:fs';
import * as path from 'node:path';

const DEFAULT_CONFIG = '/etc/containerd/config.toml';
const DEFAULT_STATE = '/run/containerd';
export const TASK_RUNTIME_DIR = 'io.containerd.runtime.v2.task';

/** The inodes of the unix sockets bound to `socketPath` (the listening one and those it accepted). */
function socketInodes(socketPath: string): Set<string> {
  const inodes = new Set<string>();
  for (const line of fs.readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f.slice(7).join(' ') === socketPath) inodes.add(f[6]);
  }
  return inodes;
}

/** The pid of a process named containerd that holds one of those sockets. */
function serverPid(socketPath: string): number | undefined {
  const inodes = socketInodes(socketPath);
  if (!inodes.size) return undefined;
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() !== 'containerd') continue;
      for (const fd of fs.readdirSync(`/proc/${p}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${p}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(p);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return undefined;
}

/** A flag's value from an argv (`--name value`, `--name=value`, `-n value`). */
function flag(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    for (const n of names) {
      if (args[i] === n && i + 1 < args.length) return args[i + 1];
      if (args[i].startsWith(`${n}=`)) return args[i].slice(n.length + 1);
    }
  }
  return undefined;
}

/** The top-level `state = "…"` of a containerd configuration (before its first table). */
export function stateFromConfig(toml: string): string | undefined {
  for (const line of toml.split('\n')) {
    if (/^\s*\[/.test(line)) break;
    const m = /^\s*state\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(line);
    if (m) return m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2];
  }
  return undefined;
}

/** The state directory given by a containerd command line (and the configuration file it names). */
export function stateFromArgs(args: string[], readFile: (p: string) => string | undefined): string {
  const given = flag(args, ['--state']);
  if (given) return given;
  const config = readFile(flag(args, ['--config', '-c']) ?? DEFAULT_CONFIG);
  return (config && stateFromConfig(config)) || DEFAULT_STATE;
}

/** containerd's state directory: `own` when berth started containerd itself, else read from the serving process. */
export function containerdStateDir(address: string, own?: string): string | undefined {
  if (own) return own;
  try {
    const pid = serverPid(address.replace(/^unix:\/\//, ''));
    if (pid === undefined) return undefined;
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    const read = (p: string) => {
      try {
        return fs.readFileSync(path.resolve(cwd, p), 'utf8');
      } catch {
        return undefined;
      }
    };
    const state = path.resolve(cwd, stateFromArgs(args.slice(1), read));
    return fs.existsSync(path.join(state, TASK_RUNTIME_DIR)) ? state : undefined;
  } catch {
    return undefined;
  }
}
