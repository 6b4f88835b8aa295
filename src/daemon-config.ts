// daemon.json (--config-file): the engine's keys that apply to berth, checked in the engine's order and with its
// messages (docs/operations.md): JSON syntax, unknown keys, keys also given as flags, Go's type errors, then values.
// A leaf like config.ts: parsing and checks only; reading the file and applying it is the caller's.
import * as fs from 'node:fs';
import { isIP } from 'node:net';
import type { Config } from './config';
import type { Ulimit } from './types/config';

type Kind = 'bool' | 'string' | 'int' | '[]string' | 'map[string]string' | 'ulimits' | 'pools';

/** The keys berth reads, with their Go types (for the type errors) — dockerd's names. */
const KEYS: Record<string, Kind> = {
  hosts: '[]string',
  tls: 'bool',
  tlsverify: 'bool',
  tlscacert: 'string',
  tlscert: 'string',
  tlskey: 'string',
  'data-root': 'string',
  'exec-root': 'string',
  containerd: 'string',
  'containerd-namespace': 'string',
  group: 'string',
  'log-level': 'string',
  debug: 'bool',
  labels: '[]string',
  'log-driver': 'string',
  'log-opts': 'map[string]string',
  'default-ulimits': 'ulimits',
  dns: '[]string',
  'dns-search': '[]string',
  'dns-opts': '[]string',
  'insecure-registries': '[]string',
  'registry-mirrors': '[]string',
  'max-concurrent-downloads': 'int',
  'max-concurrent-uploads': 'int',
  bip: 'string',
  ipv6: 'bool',
  'fixed-cidr-v6': 'string',
  'default-address-pools': 'pools',
  iptables: 'bool',
  'ip-forward': 'bool',
  'userland-proxy': 'bool',
  'live-restore': 'bool',
  'shutdown-timeout': 'int',
  'cgroup-parent': 'string',
  'exec-opts': '[]string',
  'api-cors-header': 'string',
  'authorization-plugins': '[]string',
};

const GO_TYPE: Record<Kind, string> = {
  bool: 'bool',
  string: 'string',
  int: 'int',
  '[]string': '[]string',
  'map[string]string': 'map[string]string',
  ulimits: 'map[string]*units.Ulimit',
  pools: '[]*ipamutils.NetworkToSplit',
};

export class ConfigFileError extends Error {}

export type DaemonFile = Record<string, unknown>;

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number
}

/** Go's %v of a decoded JSON value (for the conflict message). */
export function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object') return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`).join(' ')}]`;
  return String(v);
}

function typeError(key: string, v: unknown, kind: Kind): string | undefined {
  if (v === null) return undefined;
  const bad = (what: unknown, type: string) => `json: cannot unmarshal ${jsonKind(what)} into Go struct field Config.${key} of type ${type}`;
  switch (kind) {
    case 'bool':
      return typeof v === 'boolean' ? undefined : bad(v, 'bool');
    case 'string':
      return typeof v === 'string' ? undefined : bad(v, 'string');
    case 'int':
      if (typeof v !== 'number') return bad(v, 'int');
      return Number.isInteger(v) ? undefined : `json: cannot unmarshal number ${v} into Go struct field Config.${key} of type int`;
    case '[]string': {
      if (!Array.isArray(v)) return bad(v, '[]string');
      const e = v.find((x) => typeof x !== 'string' && x !== null);
      return e === undefined ? undefined : bad(e, 'string');
    }
    case 'map[string]string': {
      if (typeof v !== 'object' || Array.isArray(v)) return bad(v, 'map[string]string');
      const e = Object.values(v as object).find((x) => typeof x !== 'string' && x !== null);
      return e === undefined ? undefined : bad(e, 'string');
    }
    case 'ulimits': {
      if (typeof v !== 'object' || Array.isArray(v)) return bad(v, GO_TYPE.ulimits);
      for (const u of Object.values(v as object)) {
        if (u === null) continue;
        if (typeof u !== 'object' || Array.isArray(u)) return bad(u, 'units.Ulimit');
        for (const [f, t] of [['Name', 'string'], ['Hard', 'int64'], ['Soft', 'int64']] as const) {
          const x = (u as Record<string, unknown>)[f];
          if (x !== undefined && x !== null && (t === 'string' ? typeof x !== 'string' : !Number.isInteger(x))) return `json: cannot unmarshal ${jsonKind(x)} into Go struct field Ulimit.${key}.${f} of type ${t}`;
        }
      }
      return undefined;
    }
    case 'pools': {
      if (!Array.isArray(v)) return bad(v, GO_TYPE.pools);
      for (const p of v) {
        if (p === null) continue;
        if (typeof p !== 'object' || Array.isArray(p)) return bad(p, 'ipamutils.NetworkToSplit');
        const { base, size } = p as Record<string, unknown>;
        if (base !== undefined && typeof base !== 'string') return `json: cannot unmarshal ${jsonKind(base)} into Go struct field NetworkToSplit.${key}.base of type string`;
        if (size !== undefined && !Number.isInteger(size)) return `json: cannot unmarshal ${jsonKind(size)} into Go struct field NetworkToSplit.${key}.size of type int`;
      }
      return undefined;
    }
  }
}

const DOMAIN = /^(:?(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]))$/;
const LOG_LEVELS = ['panic', 'fatal', 'error', 'warn', 'warning', 'info', 'debug', 'trace'];

/** Value checks after decoding: the engine's `configuration validation from file failed: …` messages. */
function valueError(f: DaemonFile): string | undefined {
  const strings = (k: string) => ((f[k] as (string | null)[] | null | undefined) ?? []).filter((x): x is string => x !== null);
  for (const l of strings('labels')) if (!l.includes('=')) return `bad attribute format: ${l}`;
  for (const d of strings('dns')) if (isIP(d) === 0) return `${d} is not an ip address`;
  for (const d of strings('dns-search')) if (d !== '.' && (d.length > 255 || !DOMAIN.test(d.replace(/\.$/, '')))) return `${d} is not a valid domain`;
  for (const [k, what] of [['max-concurrent-downloads', 'downloads'], ['max-concurrent-uploads', 'uploads']] as const) {
    const n = f[k];
    if (typeof n === 'number' && n < 0) return `invalid max concurrent ${what}: ${n}`;
  }
  for (const m of strings('registry-mirrors')) {
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(m)?.[1];
    if (scheme !== 'http' && scheme !== 'https') return `invalid mirror: unsupported scheme "${scheme ?? ''}" in "${m}"`;
  }
  return undefined;
}

/**
 * Parses and checks daemon.json's text. `flags` holds the daemon.json names of the flags given on the command line
 * with their values (for the conflict message). Throws ConfigFileError with the engine's whole message.
 */
export function parseDaemonFile(text: string, file: string, flags: Record<string, unknown> = {}): DaemonFile {
  const prefix = `unable to configure the Docker daemon with file ${file}: `;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(prefix + goSyntaxError(text, err as Error));
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigFileError(prefix + `json: cannot unmarshal ${jsonKind(raw)} into Go value of type map[string]interface {}`);
  }
  const f = raw as DaemonFile;
  const unknown = Object.keys(f).filter((k) => !Object.hasOwn(KEYS, k));
  if (unknown.length) throw new ConfigFileError(prefix + `the following directives don't match any configuration option: ${unknown.join(', ')}`);
  const conflicts = Object.keys(f)
    .filter((k) => Object.hasOwn(flags, k))
    .map((k) => `${k}: (from flag: ${goValue(flags[k])}, from file: ${goValue(f[k])})`);
  if (conflicts.length) throw new ConfigFileError(prefix + `the following directives are specified both as a flag and in the configuration file: ${conflicts.join(', ')}`);
  for (const k of Object.keys(f)) {
    const e = typeError(k, f[k], KEYS[k]);
    if (e) throw new ConfigFileError(prefix + e);
  }
  const v = valueError(f);
  if (v) throw new ConfigFileError(prefix + `configuration validation from file failed: ${v}`);
  const level = f['log-level'];
  if (typeof level === 'string' && !LOG_LEVELS.includes(level)) throw new ConfigFileError(`unable to parse logging level: ${level}`);
  return f;
}

/** Go's encoding/json wording for the common syntax errors (Node's own message otherwise). */
function goSyntaxError(text: string, err: Error): string {
  if (text.trim() === '') return 'EOF';
  const pos = /position (\d+)/.exec(err.message);
  if (pos) {
    const ch = text[Number(pos[1])];
    if (ch !== undefined) return `invalid character '${ch}' ${/^\s*\{\s*[^"\s}]/.test(text.slice(0, Number(pos[1]) + 1)) ? 'looking for beginning of object key string' : 'looking for beginning of value'}`;
  }
  if (/end of JSON|Unexpected end/i.test(err.message)) return 'unexpected end of JSON input';
  return err.message;
}

/** Later duplicates of a label key with another value: the engine refuses them (`conflict labels for a=c and a=b`). */
export function labelConflict(labels: string[]): string | undefined {
  const seen = new Map<string, string>();
  for (const l of labels) {
    const k = l.slice(0, l.indexOf('='));
    const prev = seen.get(k);
    if (prev !== undefined && prev !== l) return `conflict labels for ${l} and ${prev}`;
    seen.set(k, l);
  }
  return undefined;
}

const strs = (v: unknown): string[] => (v as (string | null)[]).filter((x): x is string => x !== null);

/** How each key lands in the configuration (a null value keeps the flags' value or the default). */
const APPLY: Record<string, (c: Config, v: unknown) => void> = {
  hosts: (c, v) => strs(v).length && (c.hosts = strs(v)),
  tls: (c, v) => (c.tls = v as boolean),
  tlsverify: (c, v) => (c.tlsVerify = v as boolean),
  tlscacert: (c, v) => (c.tlsCACert = v as string),
  tlscert: (c, v) => (c.tlsCert = v as string),
  tlskey: (c, v) => (c.tlsKey = v as string),
  'data-root': (c, v) => (c.dataRoot = v as string),
  'exec-root': (c, v) => (c.execRoot = v as string),
  containerd: (c, v) => (c.containerd = v as string),
  'containerd-namespace': (c, v) => (c.namespace = v as string),
  group: (c, v) => (c.group = v as string),
  'log-level': (c, v) => (c.logLevel = normaliseLevel(v as string)),
  debug: (c, v) => (c.debug = v as boolean),
  labels: (c, v) => (c.labels = strs(v)),
  'log-driver': (c, v) => (c.logDriver = v as string),
  'log-opts': (c, v) => (c.logOpts = { ...(v as Record<string, string>) }),
  dns: (c, v) => (c.dns = strs(v)),
  'dns-search': (c, v) => (c.dnsSearch = strs(v)),
  'dns-opts': (c, v) => (c.dnsOptions = strs(v)),
  'default-ulimits': (c, v) =>
    (c.defaultUlimits = Object.entries(v as Record<string, Ulimit | null>)
      .filter((e): e is [string, Ulimit] => e[1] !== null)
      .map(([name, u]) => ({ Name: u.Name || name, Soft: u.Soft ?? 0, Hard: u.Hard ?? 0 }))),
  'insecure-registries': (c, v) => (c.insecureRegistries = strs(v)),
  'registry-mirrors': (c, v) => (c.registryMirrors = strs(v)),
  'max-concurrent-downloads': (c, v) => (c.maxConcurrentDownloads = v as number),
  'max-concurrent-uploads': (c, v) => (c.maxConcurrentUploads = v as number),
  'live-restore': (c, v) => (c.liveRestore = v as boolean),
  ipv6: (c, v) => (c.ipv6 = v as boolean),
  'fixed-cidr-v6': (c, v) => (c.fixedCidrV6 = v as string),
  'shutdown-timeout': (c, v) => (c.shutdownTimeout = v as number),
  'cgroup-parent': (c, v) => (c.cgroupParent = v as string),
  'api-cors-header': (c, v) => (c.corsHeader = v as string),
  'authorization-plugins': (c, v) => (c.authorizationPlugins = strs(v)),
  bip: (c, v) => (c.bip = v as string),
  'default-address-pools': (c, v) =>
    (c.defaultAddressPools = (v as ({ base?: string; size?: number } | null)[]).filter((p): p is { base?: string; size?: number } => p !== null).map((p) => ({ base: p.base ?? '', size: p.size ?? 0 }))),
  iptables: (c, v) => (c.iptables = v as boolean),
  'ip-forward': (c, v) => (c.ipForward = v as boolean),
  'userland-proxy': (c, v) => (c.userlandProxy = v as boolean),
  'exec-opts': (c, v) => (c.execOpts = strs(v)),
};

/** The file applied over the flags' configuration: a new object (the file itself kept in `file`). */
export function applyDaemonFile(flags: Config, f: DaemonFile): Config {
  const c: Config = { ...flags, file: f };
  for (const [k, v] of Object.entries(f)) if (v !== null && APPLY[k]) APPLY[k](c, v);
  return c;
}

/**
 * What a SIGHUP changes, as the engine's reload does: debug, log-level, labels, insecure-registries,
 * registry-mirrors, shutdown-timeout, live-restore and authorization-plugins when the new file sets them (unset keys keep their running
 * value); max-concurrent-downloads/uploads always (unset = the defaults 3 and 5). Other keys wait for a restart.
 */
export function reloadInto(live: Config, f: DaemonFile): void {
  const set = (k: string) => f[k] !== undefined && f[k] !== null;
  if (set('debug')) live.debug = f.debug as boolean;
  if (set('log-level')) live.logLevel = normaliseLevel(f['log-level'] as string);
  if (set('labels')) live.labels = strs(f.labels);
  if (set('insecure-registries')) live.insecureRegistries = strs(f['insecure-registries']);
  if (set('registry-mirrors')) live.registryMirrors = strs(f['registry-mirrors']);
  if (set('shutdown-timeout')) live.shutdownTimeout = f['shutdown-timeout'] as number;
  if (set('live-restore')) live.liveRestore = f['live-restore'] as boolean;
  if (set('authorization-plugins')) live.authorizationPlugins = strs(f['authorization-plugins']);
  live.maxConcurrentDownloads = set('max-concurrent-downloads') ? (f['max-concurrent-downloads'] as number) : 3;
  live.maxConcurrentUploads = set('max-concurrent-uploads') ? (f['max-concurrent-uploads'] as number) : 5;
  live.file = f;
}

/** The daemon `reload` event's attributes: the engine's names; lists JSON-encoded, as the engine writes them. */
export function reloadAttributes(c: Config, name: string): Record<string, string> {
  return {
    debug: String(c.debug),
    'allow-nondistributable-artifacts': '[]',
    'default-runtime': 'io.containerd.runc.v2',
    'insecure-registries': JSON.stringify(c.insecureRegistries),
    labels: JSON.stringify(c.labels),
    'live-restore': String(c.liveRestore),
    'max-concurrent-downloads': String(c.maxConcurrentDownloads),
    'max-concurrent-uploads': String(c.maxConcurrentUploads),
    'max-download-attempts': '5',
    name,
    'registry-mirrors': JSON.stringify(c.registryMirrors),
    runtimes: 'io.containerd.runc.v2:runc',
    'shutdown-timeout': String(c.shutdownTimeout),
  };
}

/** logrus's levels onto winston's. */
export function normaliseLevel(level: string): string {
  if (level === 'warning') return 'warn';
  if (level === 'panic' || level === 'fatal') return 'error';
  if (level === 'trace') return 'debug';
  return level;
}

/**
 * Reads --config-file and applies it over the flags. The default file may be absent; a file named with
 * --config-file must exist (the engine's `open F: no such file or directory`).
 */
export function loadDaemonConfig(flags: Config): Config {
  const f = readDaemonFile(flags);
  return f ? applyDaemonFile(flags, f) : { ...flags };
}

/** The checked file, or undefined when the default file is absent. Throws ConfigFileError. */
export function readDaemonFile(flags: Config): DaemonFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(flags.configFile, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' && !flags.given['config-file']) return undefined;
    const what = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    throw new ConfigFileError(`unable to configure the Docker daemon with file ${flags.configFile}: open ${flags.configFile}: ${what}`);
  }
  const f = parseDaemonFile(text, flags.configFile, flags.given);
  const labels = (f.labels as string[] | undefined) ?? (flags.given.labels as string[] | undefined) ?? [];
  const conflict = labelConflict(labels);
  if (conflict) throw new ConfigFileError(conflict);
  return f;
}

/** The logger's level: debug mode wins over log-level. */
export function effectiveLogLevel(c: Config): string {
  return c.debug ? 'debug' : normaliseLevel(c.logLevel);
}
