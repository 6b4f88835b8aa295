// Swarm requests — pure: init/join addresses, node and swarm update specs, the nodes and tasks list filters, with
// the reference's messages. Where the reference answers 500 for a client's mistake (a bad filter value, a bad
// token), the caller's error kind makes it a 400.
import { invalidParameter } from '../../errors';
import { labelsMatch } from '../filters';
import { taskName } from './service';
import type { NodeRecord, NodeSpec, TaskRecord } from '../../types/swarm';

export const DEFAULT_LISTEN_ADDR = '0.0.0.0:2377';
const ADVERTISE_MSG = 'advertise address must be a non-zero IP address or network interface (with optional port number)';

const isIPv4 = (s: string): boolean => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((p) => Number(p) <= 255);

/** host:port (or a bare host, with `dfltPort`); the host an IPv4 address or an interface name. */
export function splitHostPort(addr: string, dfltPort: number): { host: string; port: number } {
  const m = /^(.*?)(?::(\d+))?$/.exec(addr.trim())!;
  const port = m[2] !== undefined ? Number(m[2]) : dfltPort;
  if (!(port > 0 && port < 65536)) throw invalidParameter(`invalid port in address ${addr}`);
  return { host: m[1], port };
}

/**
 * The IP an address names: an IPv4 address as it is, an interface name as its first IPv4 address (`interfaces`
 * maps names to their IPv4 addresses). `what` words the error as the reference does.
 */
export function resolveAddr(host: string, interfaces: Record<string, string[]>, what: 'advertise' | 'listen'): string {
  if (isIPv4(host)) {
    if (what === 'advertise' && host === '0.0.0.0') throw invalidParameter(ADVERTISE_MSG);
    return host;
  }
  const ips = interfaces[host];
  if (ips?.length) return ips[0];
  if (what === 'advertise') throw invalidParameter(ADVERTISE_MSG);
  throw invalidParameter(`failed to listen on remote API address: ${host}`);
}

export interface ResolvedAddrs {
  listenIP: string;
  listenPort: number;
  advertiseIP: string;
  advertisePort: number;
}

/**
 * ListenAddr and AdvertiseAddr of an init or join; the advertise IP defaults to the listen IP, else the host's: the
 * one address of its devices (`devices`: the interfaces that are hardware, not bridges, veths or other virtual links,
 * as the engine skips every link of a kind; an interface named explicitly may be any).
 */
export function resolveSwarmAddrs(listenAddr: string | undefined, advertiseAddr: string | undefined, interfaces: Record<string, string[]>, devices?: ReadonlySet<string>): ResolvedAddrs {
  const l = splitHostPort(listenAddr || DEFAULT_LISTEN_ADDR, 2377);
  const listenIP = resolveAddr(l.host || '0.0.0.0', interfaces, 'listen');
  let advertiseIP: string;
  let advertisePort = l.port;
  if (advertiseAddr) {
    const a = splitHostPort(advertiseAddr, l.port);
    advertiseIP = resolveAddr(a.host, interfaces, 'advertise');
    advertisePort = a.port;
  } else if (listenIP !== '0.0.0.0') {
    advertiseIP = listenIP;
  } else {
    const external = Object.entries(interfaces).filter(([name, ips]) => name !== 'lo' && ips.length && (!devices || devices.has(name)));
    if (external.length === 0) throw invalidParameter("could not find the system's IP address - specify one with --advertise-addr");
    if (external.length > 1) {
      const list = external.map(([name, ips]) => `${ips[0]} on ${name}`).join(' and ');
      throw invalidParameter(`could not choose an IP address to advertise since this system has multiple addresses on different interfaces (${list}) - specify one with --advertise-addr`);
    }
    advertiseIP = external[0][1][0];
  }
  return { listenIP, listenPort: l.port, advertiseIP, advertisePort };
}

/** A node update's Spec: Role and Availability required, with the reference's messages. */
export function parseNodeSpec(body: unknown): NodeSpec {
  const b = (body ?? {}) as Record<string, unknown>;
  const role = String(b.Role ?? '');
  if (role !== 'manager' && role !== 'worker') throw invalidParameter(`invalid Role: ${JSON.stringify(role)}`);
  const av = String(b.Availability ?? '');
  if (av !== 'active' && av !== 'pause' && av !== 'drain') throw invalidParameter(`invalid Availability: ${JSON.stringify(av)}`);
  const spec: NodeSpec = { Role: role, Availability: av };
  if (typeof b.Name === 'string' && b.Name) spec.Name = b.Name;
  if (b.Labels && typeof b.Labels === 'object') spec.Labels = Object.fromEntries(Object.entries(b.Labels as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  return spec;
}

/** `version=N` of an update: required, an unsigned integer (`what`: node or swarm). */
export function parseVersion(raw: string | undefined, what: 'node' | 'swarm'): number {
  const v = raw ?? '';
  if (!/^\d+$/.test(v)) throw invalidParameter(`invalid ${what} version '${v}': strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function checkKeys(filters: Map<string, string[]>, accepted: string[]): void {
  for (const k of filters.keys()) if (!accepted.includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
}

export type NodeFilter = (n: NodeRecord) => boolean;

/** GET /nodes filters: id and name prefixes, label / node.label, role, membership (every listed node is accepted). */
export function nodeFilter(filters: Map<string, string[]>): NodeFilter {
  checkKeys(filters, ['id', 'label', 'membership', 'name', 'role', 'node.label']);
  const roles = filters.get('role') ?? [];
  for (const r of roles) if (r !== 'manager' && r !== 'worker') throw invalidParameter(`Invalid role filter: '${r}'`);
  const membership = filters.get('membership') ?? [];
  for (const m of membership) if (m !== 'accepted' && m !== 'pending') throw invalidParameter(`Invalid membership filter: '${m}'`);
  const ids = filters.get('id') ?? [];
  const names = filters.get('name') ?? [];
  const labels = [...(filters.get('label') ?? []), ...(filters.get('node.label') ?? [])];
  return (n) =>
    (ids.length === 0 || ids.some((p) => n.id.startsWith(p))) &&
    (names.length === 0 || names.some((p) => (n.spec.Name || n.description.hostname).startsWith(p))) &&
    (roles.length === 0 || roles.includes(n.spec.Role)) &&
    (membership.length === 0 || membership.includes('accepted')) &&
    labelsMatch(n.spec.Labels, labels);
}

export interface TaskFilterInput {
  filters: Map<string, string[]>;
  /** service and node filter values, resolved to ids by the service (an unknown one is already a 404). */
  serviceIds: string[];
  nodeIds: string[];
}

export function checkTaskFilterKeys(filters: Map<string, string[]>): void {
  checkKeys(filters, ['name', 'id', 'label', 'service', 'node', 'desired-state']);
  for (const s of filters.get('desired-state') ?? []) {
    if (!['running', 'shutdown', 'accepted'].includes(s)) throw invalidParameter(`Invalid desired-state filter: '${s}'`);
  }
}

export function taskFilter(f: TaskFilterInput): (t: TaskRecord) => boolean {
  const ids = f.filters.get('id') ?? [];
  const names = f.filters.get('name') ?? [];
  const labels = f.filters.get('label') ?? [];
  const states = f.filters.get('desired-state') ?? [];
  return (t) =>
    (ids.length === 0 || ids.some((p) => t.ID.startsWith(p))) &&
    (names.length === 0 || names.some((p) => taskName(t).startsWith(p))) &&
    (f.serviceIds.length === 0 || f.serviceIds.includes(t.ServiceID)) &&
    (f.nodeIds.length === 0 || f.nodeIds.includes(t.NodeID ?? '')) &&
    (states.length === 0 || states.includes(t.DesiredState)) &&
    labelsMatch(t.Labels, labels);
}
