// dockerd-style flags for bin/berthd.
import * as os from 'node:os';
import * as path from 'node:path';
import type { PluginTimings } from './plugins/client';
import type { Ulimit } from './types/config';

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
  /** `--ipv6` / "ipv6": the default bridge is dual-stack (its IPv6 subnet is `fixedCidrV6`, which it then needs). */
  ipv6: boolean;
  /** `--fixed-cidr-v6` / "fixed-cidr-v6": the default bridge's IPv6 subnet (listed without --ipv6, used with it). */
  fixedCidrV6?: string;
  /** cgroup parent for containers (`/berth` → /sys/fs/cgroup/<ctl>/berth/<id>). */
  cgroupParent: string;
  /** Where legacy plugins' sockets are found and managed plugins' sockets appear (the engine's /run/docker/plugins). */
  pluginSocketDir: string;
  /** Where legacy plugins' .spec/.json files are found. */
  pluginSpecDirs: string[];
  /** The plugin client's retry window and deadlines: the engine's (30 s, 2 min, 1 min); tests shorten them. */
  pluginTimings?: PluginTimings;
  /** `--tls`: undefined when not given (a TCP listener then needs --tlsverify or an explicit --tls=false). */
  tls?: boolean;
  /** `--tlsverify`: client certificates required and checked against tlsCACert (implies tls). */
  tlsVerify: boolean;
  tlsCACert: string;
  tlsCert: string;
  tlsKey: string;
  /** `-G, --group` of the unix sockets; undefined = `docker` if that group exists, else root only. */
  group?: string;
  /** `--config-file`: daemon.json (docs/operations.md). */
  configFile: string;
  /** The flags given on the command line, by their daemon.json names, with their values (a key may not be in both). */
  given: Record<string, unknown>;
  /** `-D, --debug` / "debug": /info's Debug; debug logging. */
  debug: boolean;
  /** `--label` / "labels": /info's Labels. */
  labels: string[];
  /** "log-driver", "log-opts": the defaults of a container created without HostConfig.LogConfig. */
  logDriver: string;
  logOpts: Record<string, string>;
  /** "dns", "dns-search", "dns-opts": the defaults of a container's resolv.conf. */
  dns: string[];
  dnsSearch: string[];
  dnsOptions: string[];
  /** `--default-ulimit` / "default-ulimits": the rlimits of a new container whose HostConfig.Ulimits does not name them. */
  defaultUlimits: Ulimit[];
  insecureRegistries: string[];
  registryMirrors: string[];
  maxConcurrentDownloads: number;
  maxConcurrentUploads: number;
  /** Seconds SIGTERM waits for a clean stop before exiting anyway (the engine's default 15). */
  shutdownTimeout: number;
  /** "live-restore": accepted and shown; containers always outlive berthd (they belong to containerd). */
  liveRestore: boolean;
  /** `--cluster-store etcd://HOST:PORT[,HOST:PORT]`: swarm mode keeps its state in this existing etcd (its client
   * URLs, plain http) instead of etcd members of its own (docs/swarm.md). */
  clusterStore?: string[];
  /** The flag's value as given (/info's ClusterStore, as the reference shows its own). */
  clusterStoreFlag?: string;
  /** `--swarm-min-cert-expiry SECONDS`: the shortest CAConfig.NodeCertExpiry accepted (the reference's 1 h; tests
   * shorten it to see node certificates renewed). */
  swarmMinCertExpirySec?: number;
  /** `--vxlan-port N`: the UDP port of this node's VXLAN endpoint for overlay networks (default 4789). Nodes that
   * share a network namespace (several on one machine) each need their own (docs/overlay.md). */
  vxlanPort?: number;
  /** `--authorization-plugin` / "authorization-plugins": legacy AuthZ plugins asked in order (docs/authz.md). */
  authorizationPlugins: string[];
  /** "bip": the default bridge's address and prefix (`10.1.0.1/24`); its network replaces --bridge-subnet. */
  bip?: string;
  /** "default-address-pools": where user-defined networks without a subnet get one (base split into /size). */
  defaultAddressPools?: { base: string; size: number }[];
  /** "iptables": berth installs its host iptables rules (NAT, forwarding, port publishing); default true. */
  iptables: boolean;
  /** "ip-forward": berth sets net.ipv4.ip_forward when it makes a bridge; default true. */
  ipForward: boolean;
  /** "userland-proxy": accepted (berth has no proxy process; docs/operations.md). */
  userlandProxy: boolean;
  /** "exec-opts": `native.cgroupdriver=cgroupfs|systemd`. */
  execOpts: string[];
  /** The cgroup driver exec-opts chose, settled at start (/info's CgroupDriver). */
  cgroupDriver?: 'cgroupfs' | 'systemd';
  /** The checked daemon.json, for the keys berth checks but does not act on. */
  file?: Record<string, unknown>;
}

/** The engine's DOCKER_CERT_PATH-style default: $DOCKER_CERT_PATH, else ~/.docker. */
export function defaultCertPath(env: NodeJS.ProcessEnv): string {
  return env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker');
}

export const DEFAULTS: Config = {
  hosts: [],
  dataRoot: '/var/lib/berth',
  execRoot: '/run/berth',
  namespace: 'berth',
  logLevel: 'info',
  bridgeSubnet: '172.31.0.0/16',
  bridgeName: 'berth0',
  ipv6: false,
  cgroupParent: '/berth',
  pluginSocketDir: '/run/docker/plugins',
  pluginSpecDirs: ['/etc/docker/plugins', '/usr/lib/docker/plugins'],
  tlsVerify: false,
  tlsCACert: path.join(os.homedir(), '.docker', 'ca.pem'),
  tlsCert: path.join(os.homedir(), '.docker', 'cert.pem'),
  tlsKey: path.join(os.homedir(), '.docker', 'key.pem'),
  configFile: '/etc/berth/daemon.json',
  given: {},
  debug: false,
  labels: [],
  logDriver: 'json-file',
  logOpts: {},
  dns: [],
  dnsSearch: [],
  dnsOptions: [],
  defaultUlimits: [],
  insecureRegistries: [],
  registryMirrors: [],
  maxConcurrentDownloads: 3,
  maxConcurrentUploads: 5,
  shutdownTimeout: 15,
  liveRestore: false,
  authorizationPlugins: [],
  iptables: true,
  ipForward: true,
  userlandProxy: true,
  execOpts: [],
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
      --ipv6                 Enable IPv6 networking on the default bridge (needs --fixed-cidr-v6)
      --fixed-cidr-v6 string IPv6 subnet of the default bridge
      --cgroup-parent string Parent cgroup for containers (default "/berth")
      --cluster-store string  etcd://HOST:PORT[,HOST:PORT]: keep swarm mode's state in this existing etcd
      --swarm-min-cert-expiry int  Shortest node certificate expiry accepted, in seconds (default 3600; for tests)
      --vxlan-port int       UDP port of this node's VXLAN endpoint for overlay networks (default 4789)
      --plugin-socket-dir string  Directory of plugin sockets (default "/run/docker/plugins")
      --plugin-spec-dir list Directory of plugin .spec/.json files, repeatable (default /etc/docker/plugins,
                             /usr/lib/docker/plugins)
  -G, --group string         Group for the unix socket (default "docker" when it exists, else root only)
      --tls                  Use TLS; implied by --tlsverify. --tls=false accepts a TCP listener without TLS
      --tlscacert string     Trust certs signed only by this CA (default "$DOCKER_CERT_PATH/ca.pem", else ~/.docker)
      --tlscert string       Path to TLS certificate file (default "$DOCKER_CERT_PATH/cert.pem")
      --tlskey string        Path to TLS key file (default "$DOCKER_CERT_PATH/key.pem")
      --tlsverify            Use TLS and verify the client (default true when DOCKER_TLS_VERIFY is set)
      --authorization-plugin list  Authorization plugins to load, asked in order (repeatable)
      --config-file string   Daemon configuration file (default "/etc/berth/daemon.json")
  -D, --debug                Enable debug mode
      --label list           Set key=value labels to the daemon
      --default-ulimit list  Default ulimits for containers (NAME=SOFT[:HARD])
  -v, --version              Print version information and quit
  -h, --help                 Print usage
`;

export class UsageError extends Error {}

/** `etcd://HOST:PORT[,HOST:PORT]` as etcd client URLs (plain http). */
export function parseClusterStore(v: string): string[] {
  const m = /^etcd:\/\/(.+)$/.exec(v);
  const hosts = m ? m[1].split(',').map((h) => h.trim()) : [];
  if (!hosts.length || hosts.some((h) => !/^[^\s/:,]+:\d{1,5}$/.test(h))) {
    throw new UsageError(`invalid argument "${v}" for "--cluster-store" flag: berth's cluster store is etcd://HOST:PORT[,HOST:PORT...]`);
  }
  return hosts.map((h) => `http://${h}`);
}

const BOOL = /^(1|t|T|TRUE|true|True)$|^(0|f|F|FALSE|false|False)$/;

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Config | 'help' | 'version' {
  const certs = defaultCertPath(env);
  const c: Config = {
    ...DEFAULTS,
    hosts: [],
    tls: env.DOCKER_TLS ? true : undefined,
    tlsVerify: !!env.DOCKER_TLS_VERIFY,
    tlsCACert: path.join(certs, 'ca.pem'),
    tlsCert: path.join(certs, 'cert.pem'),
    tlsKey: path.join(certs, 'key.pem'),
    given: {},
    labels: [],
    authorizationPlugins: [],
  };
  const hosts: string[] = [];
  const authz: string[] = [];
  const labels: string[] = [];
  let ulimits: Ulimit[] = [];
  const specDirs: string[] = [];
  // A boolean flag takes no separate argument; `--tls=false` (Go's strconv.ParseBool forms) sets it off.
  const bool = (name: string, inline: string | undefined): boolean => {
    if (inline === undefined) return true;
    const m = BOOL.exec(inline);
    if (!m) throw new UsageError(`invalid argument "${inline}" for "${name}" flag: strconv.ParseBool: parsing "${inline}": invalid syntax`);
    return m[1] !== undefined;
  };
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
        hosts.push(val());
        c.given.hosts = hosts;
        break;
      case '--data-root':
        c.dataRoot = c.given['data-root'] = path.resolve(val());
        break;
      case '--exec-root':
        c.execRoot = c.given['exec-root'] = path.resolve(val());
        break;
      case '--containerd':
        c.containerd = c.given.containerd = val();
        break;
      case '--namespace':
        c.namespace = c.given['containerd-namespace'] = val();
        break;
      case '-l':
      case '--log-level':
        c.logLevel = val();
        c.given['log-level'] = c.logLevel;
        break;
      case '--api-cors-header':
        c.corsHeader = c.given['api-cors-header'] = val();
        break;
      case '--bridge-subnet':
        c.bridgeSubnet = val();
        break;
      case '--bridge-name':
        c.bridgeName = val();
        break;
      case '--ipv6':
        c.ipv6 = c.given.ipv6 = bool(a, inline);
        break;
      case '--fixed-cidr-v6':
        c.fixedCidrV6 = c.given['fixed-cidr-v6'] = val();
        break;
      case '--cgroup-parent':
        c.cgroupParent = c.given['cgroup-parent'] = val();
        break;
      case '--plugin-socket-dir':
        c.pluginSocketDir = path.resolve(val());
        break;
      case '--plugin-spec-dir':
        specDirs.push(path.resolve(val()));
        break;
      case '-G':
      case '--group':
        c.group = c.given.group = val();
        break;
      case '--tls':
        c.tls = c.given.tls = bool(a, inline);
        break;
      case '--tlsverify':
        c.tlsVerify = c.given.tlsverify = bool(a, inline);
        break;
      case '--tlscacert':
        c.tlsCACert = c.given.tlscacert = val();
        break;
      case '--tlscert':
        c.tlsCert = c.given.tlscert = val();
        break;
      case '--tlskey':
        c.tlsKey = c.given.tlskey = val();
        break;
      case '--config-file':
        c.configFile = c.given['config-file'] = path.resolve(val());
        break;
      case '-D':
      case '--debug':
        c.debug = c.given.debug = bool(a, inline);
        break;
      case '--cluster-store': {
        const v = val();
        c.clusterStore = parseClusterStore(v);
        c.clusterStoreFlag = v;
        break;
      }
      case '--swarm-min-cert-expiry': {
        const v = val();
        if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`invalid argument "${v}" for "--swarm-min-cert-expiry" flag: a number of seconds`);
        c.swarmMinCertExpirySec = Number(v);
        break;
      }
      case '--vxlan-port': {
        const v = val();
        if (!/^[1-9]\d*$/.test(v) || Number(v) > 65535) throw new UsageError(`invalid argument "${v}" for "--vxlan-port" flag: a UDP port`);
        c.vxlanPort = Number(v);
        break;
      }
      case '--authorization-plugin':
        authz.push(val());
        c.authorizationPlugins = c.given['authorization-plugins'] = authz;
        break;
      case '--default-ulimit': {
        const u = parseUlimit(val());
        ulimits = [...ulimits.filter((x) => x.Name !== u.Name), u];
        c.defaultUlimits = c.given['default-ulimits'] = ulimits;
        break;
      }
      case '--label':
        labels.push(val());
        c.labels = c.given.labels = labels;
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
  c.hosts = hosts.length ? hosts : [DEFAULT_HOST];
  if (specDirs.length) c.pluginSpecDirs = specDirs;
  return c;
}

const ULIMIT_NAMES = new Set(['core', 'cpu', 'data', 'fsize', 'locks', 'memlock', 'msgqueue', 'nice', 'nofile', 'nproc', 'rss', 'rtprio', 'rttime', 'sigpending', 'stack']);

/** `--default-ulimit NAME=SOFT[:HARD]`, checked as the engine's (go-units ParseUlimit) with its messages. */
export function parseUlimit(v: string): Ulimit {
  const fail = (why: string) => new UsageError(`invalid argument "${v}" for "--default-ulimit" flag: ${why}`);
  const eq = v.indexOf('=');
  if (eq < 0) throw fail(`invalid ulimit argument: ${v}`);
  const name = v.slice(0, eq);
  if (!ULIMIT_NAMES.has(name)) throw fail(`invalid ulimit type: ${name}`);
  const [softS, hardS] = v.slice(eq + 1).split(/:(.*)/s);
  const int = (x: string) => {
    if (!/^[+-]?\d+$/.test(x)) throw fail(`strconv.ParseInt: parsing "${x}": invalid syntax`);
    return Number(x);
  };
  const soft = int(softS);
  const hard = hardS === undefined ? soft : int(hardS);
  if (soft > hard) throw fail(`ulimit soft limit must be less than or equal to hard limit: ${soft} > ${hard}`);
  return { Name: name, Soft: soft, Hard: hard };
}

export { USAGE };
