// dockerd-style flags for bin/berthd.
import * as path from 'node:path';
import type { PluginTimings } from './plugins/client';

export interface Config {
  hosts: string[];
  dataRoot: string;
  execRoot: string;
  /** containerd socket; undefined = use the default if reachable, else start our own. */
  containerd?: string;
  namespace: string;
  logLevel: string;
  corsHeader?: string;
  /** Subnet for berth's default bridge (issue 6). */
  bridgeSubnet: string;
  bridgeName: string;
  /** cgroup parent for containers (`/berth` → /sys/fs/cgroup/<ctl>/berth/<id>). */
  cgroupParent: string;
  /** Where legacy plugins' sockets are found and managed plugins' sockets appear (the engine's /run/docker/plugins). */
  pluginSocketDir: string;
  /** Where legacy plugins' .spec/.json files are found. */
  pluginSpecDirs: string[];
  /** The plugin client's retry window and deadlines: the engine's (30 s, 2 min, 1 min); tests shorten them. */
  pluginTimings?: PluginTimings;
}

export const DEFAULTS: Config = {
  hosts: [],
  dataRoot: '/var/lib/berth',
  execRoot: '/run/berth',
  namespace: 'berth',
  logLevel: 'info',
  bridgeSubnet: '172.31.0.0/16',
  bridgeName: 'berth0',
  cgroupParent: '/berth',
  pluginSocketDir: '/run/docker/plugins',
  pluginSpecDirs: ['/etc/docker/plugins', '/usr/lib/docker/plugins'],
};

export const DEFAULT_HOST = 'unix:///var/run/berth.sock';

const USAGE = `Usage: berthd [OPTIONS]

A Docker Engine API (v1.18-v1.24) daemon over containerd

Options:
  -H, --host list            Daemon socket(s) to connect to (default unix:///var/run/berth.sock)
      --data-root string     Root directory of persistent berth state (default "/var/lib/berth")
      --exec-root string     Root directory for execution state files (default "/run/berth")
      --containerd string    containerd grpc address; when absent or unreachable berth starts its own
      --namespace string     containerd namespace (default "berth")
  -l, --log-level string     Set the logging level ("debug"|"info"|"warn"|"error") (default "info")
      --api-cors-header string  Set CORS headers in the Engine API
      --bridge-subnet string Subnet of berth's default bridge (default "172.31.0.0/16")
      --bridge-name string   Interface name of berth's default bridge (default "berth0")
      --cgroup-parent string Parent cgroup for containers (default "/berth")
      --plugin-socket-dir string  Directory of plugin sockets (default "/run/docker/plugins")
      --plugin-spec-dir list Directory of plugin .spec/.json files, repeatable (default /etc/docker/plugins,
                             /usr/lib/docker/plugins)
  -v, --version              Print version information and quit
  -h, --help                 Print usage
`;

export class UsageError extends Error {}

export function parseArgs(argv: string[]): Config | 'help' | 'version' {
  const c: Config = { ...DEFAULTS, hosts: [] };
  const specDirs: string[] = [];
  const take = (i: number, name: string): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new UsageError(`flag needs an argument: ${name}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let inline: string | undefined;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0) {
      inline = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const val = (): string => {
      if (inline !== undefined) return inline;
      const v = take(i, a);
      i++;
      return v;
    };
    switch (a) {
      case '-H':
      case '--host':
        c.hosts.push(val());
        break;
      case '--data-root':
        c.dataRoot = path.resolve(val());
        break;
      case '--exec-root':
        c.execRoot = path.resolve(val());
        break;
      case '--containerd':
        c.containerd = val();
        break;
      case '--namespace':
        c.namespace = val();
        break;
      case '-l':
      case '--log-level':
        c.logLevel = val();
        break;
      case '--api-cors-header':
        c.corsHeader = val();
        break;
      case '--bridge-subnet':
        c.bridgeSubnet = val();
        break;
      case '--bridge-name':
        c.bridgeName = val();
        break;
      case '--cgroup-parent':
        c.cgroupParent = val();
        break;
      case '--plugin-socket-dir':
        c.pluginSocketDir = path.resolve(val());
        break;
      case '--plugin-spec-dir':
        specDirs.push(path.resolve(val()));
        break;
      case '-h':
      case '--help':
        return 'help';
      case '-v':
      case '--version':
        return 'version';
      default:
        throw new UsageError(`unknown flag: ${a}`);
    }
  }
  if (c.hosts.length === 0) c.hosts.push(DEFAULT_HOST);
  if (specDirs.length) c.pluginSpecDirs = specDirs;
  return c;
}

export { USAGE };
