// Overlay networks, the pure part (docs/overlay.md): the create request's checks with the reference's messages, the
// swarm's default pool (10.0.0.0/8 in /24s), VNIs, address allocation, MACs and per-node device names. No I/O.
import { conflict, forbidden, invalidParameter } from '../errors';
import { contains, defaultGateway, intToIp, ipToInt, overlaps, parseCidr } from '../network/ipam';
import type { CreateNetworkRequest, NetworkRecord } from '../types/network';
import type { ServiceRecord, ServiceSpec, TaskRecord, Versioned } from '../types/swarm';
import { TERMINAL, type Action } from './plan';

export const VNI_OPTION = 'com.docker.network.driver.overlay.vxlanid_list';
/** The reference's first VNI for a user network (4096 is its ingress network's). */
export const FIRST_VNI = 4097;
export const DEFAULT_VXLAN_PORT = 4789;

/** The first /24 of 10.0.0.0/8 overlapping none of `taken` (10.0.0.0/24 is the reference's ingress network's). */
export function pickOverlaySubnet(taken: string[]): string {
  const used = taken.map(parseCidr);
  for (let i = 1; i < 65536; i++) {
    const c = { base: (10 * 2 ** 24 + i * 256) >>> 0, prefix: 24 };
    if (!used.some((u) => overlaps(u, c))) return `${intToIp(c.base)}/24`;
  }
  throw forbidden('could not find an available IP while allocating VIP');
}

/** The lowest free VNI from FIRST_VNI. */
export function pickVni(taken: number[]): number {
  const used = new Set(taken);
  let v = FIRST_VNI;
  while (used.has(v)) v++;
  return v;
}

/**
 * An overlay network record from a create request, as the reference stores it. `existing` are the swarm's
 * networks; `routed` the subnets routed on this host (a default subnet avoids them too).
 */
export function overlayRecord(req: CreateNetworkRequest, id: string, created: string, existing: NetworkRecord[], routed: string[]): NetworkRecord {
  const name = req.Name ?? '';
  if (!name) throw invalidParameter('invalid name: ');
  if (existing.some((n) => n.Name === name)) throw conflict(`network with name ${name} already exists`);
  if (req.IPAM?.Driver && req.IPAM.Driver !== 'default') throw invalidParameter(`IPAM driver "${req.IPAM.Driver}" is not supported for overlay networks`);
  const given = (req.IPAM?.Config ?? []).filter((c) => c.Subnet || c.Gateway || c.IPRange);
  const theirs = existing.flatMap((n) => n.IPAM.Config.map((c) => c.Subnet).filter((s): s is string => !!s));
  let subnet: string;
  let gateway: string | undefined;
  if (given.length > 1) throw invalidParameter('berth supports one subnet per overlay network');
  if (given.length === 1) {
    const g = given[0];
    if (!g.Subnet) throw invalidParameter('ipam configuration without a subnet is not supported');
    let c;
    try {
      c = parseCidr(g.Subnet);
    } catch (err) {
      throw invalidParameter(`Invalid subnet ${g.Subnet} : ${(err as Error).message}`);
    }
    if (theirs.some((s) => overlaps(parseCidr(s), c))) throw forbidden('Pool overlaps with other one on this address space');
    subnet = g.Subnet;
    gateway = g.Gateway || defaultGateway(g.Subnet);
    if (!contains(c, gateway)) throw invalidParameter(`failed to allocate gateway (${gateway}): Requested address is out of range`);
  } else {
    subnet = pickOverlaySubnet([...theirs, ...routed.filter((r) => r.startsWith('10.'))]);
    gateway = defaultGateway(subnet);
  }
  const opts = { ...(req.Options ?? {}) };
  let vni: number;
  if (opts[VNI_OPTION]) {
    vni = Number(opts[VNI_OPTION].split(',')[0]);
    if (!Number.isInteger(vni) || vni < 1 || vni > 16777215) throw invalidParameter(`invalid VNI ${opts[VNI_OPTION]}`);
    if (existing.some((n) => n.vni === vni)) throw forbidden(`VNI ${vni} is already in use`);
  } else {
    vni = pickVni(existing.map((n) => n.vni ?? 0));
  }
  opts[VNI_OPTION] = String(vni);
  return {
    Name: name,
    Id: id,
    Created: created,
    Scope: 'swarm',
    Driver: 'overlay',
    EnableIPv6: false,
    Internal: !!req.Internal,
    Attachable: !!req.Attachable,
    Ingress: !!req.Ingress,
    IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: subnet, Gateway: gateway }] },
    Options: opts,
    Labels: req.Labels ?? {},
    ConfiguredSubnet: given.length > 0,
    vni,
  };
}

/**
 * The lowest free address of the network's subnet, leaving out the network and broadcast addresses, the gateway
 * and the addresses in use. Returns "a.b.c.d/len".
 */
export function allocateAddress(net: NetworkRecord, used: Iterable<string>): string {
  const cfg = net.IPAM.Config[0];
  const c = parseCidr(cfg.Subnet!);
  const taken = new Set<number>([...used].map((a) => ipToInt(a.split('/')[0])));
  if (cfg.Gateway) taken.add(ipToInt(cfg.Gateway));
  const size = 2 ** (32 - c.prefix);
  for (let i = 1; i < size - 1; i++) {
    const ip = c.base + i;
    if (!taken.has(ip)) return `${intToIp(ip)}/${c.prefix}`;
  }
  throw forbidden(`could not find an available IP while allocating VIP`);
}

/** The reference's MAC for an address: 02:42 and the address's four bytes. */
export function macOf(ip: string): string {
  return ['02', '42', ...ip.split('/')[0].split('.').map((b) => Number(b).toString(16).padStart(2, '0'))].join(':');
}

/**
 * Device names of a network on a node: nodes on one machine share a network namespace, so the names carry the
 * node's VXLAN port (hex) with the VNI (hex): at most 2+6+1+4 = 13 characters, under the kernel's 15.
 */
export function overlayDevices(vni: number, port: number): { bridge: string; vxlan: string } {
  const tail = `${vni.toString(16)}-${port.toString(16)}`;
  return { bridge: `ob${tail}`, vxlan: `ox${tail}` };
}

/** The overlay networks a service's tasks join (the reference keeps them in Networks or TaskTemplate.Networks). */
export function serviceNetworks(spec: ServiceSpec): { Target: string; Aliases?: string[] }[] {
  return [...(spec.Networks ?? []), ...(spec.TaskTemplate.Networks ?? [])];
}

/** A task holds its addresses until it is terminal (its container is gone or going). */
const holdsAddresses = (t: TaskRecord): boolean => !TERMINAL.includes(t.Status.State);

/**
 * The leader's address allocation, applied to a round's actions: each new task of a service on overlay networks
 * gets an address on each (NetworksAttachments), and a `vip`-mode service a VIP on each of its networks (kept
 * while it stays on the network; dropped when it leaves it or turns to dnsrr). Addresses in use: those of tasks
 * not terminal and every service's VIPs. Returns the actions to write (service records may be added).
 */
export function attachNetworks(actions: Action[], services: Versioned<ServiceRecord>[], tasks: Versioned<TaskRecord>[], networks: NetworkRecord[]): Action[] {
  const byId = new Map(networks.map((n) => [n.Id, n]));
  const used = new Map<string, Set<string>>();
  const use = (net: string, addr: string): void => {
    if (!used.has(net)) used.set(net, new Set());
    used.get(net)!.add(addr.split('/')[0]);
  };
  for (const t of tasks) if (holdsAddresses(t.value)) for (const a of t.value.networks ?? []) use(a.networkId, a.addr);
  for (const s of services) for (const v of s.value.virtualIPs ?? []) use(v.NetworkID, v.Addr);
  const take = (net: NetworkRecord): string => {
    const addr = allocateAddress(net, used.get(net.Id) ?? []);
    use(net.Id, addr);
    return addr;
  };
  const out = [...actions];
  const svcAction = new Map<string, Extract<Action, { kind: 'service' }>>();
  for (const a of out) if (a.kind === 'service') svcAction.set(a.service.id, a);
  for (const s of services) {
    const nets = serviceNetworks(s.value.spec).map((n) => byId.get(n.Target)).filter((n): n is NetworkRecord => !!n);
    const vip = (s.value.spec.EndpointSpec?.Mode ?? 'vip') === 'vip';
    const have = s.value.virtualIPs ?? [];
    const want = vip ? nets.map((n) => have.find((v) => v.NetworkID === n.Id) ?? { NetworkID: n.Id, Addr: take(n) }) : [];
    if (JSON.stringify(want) === JSON.stringify(have)) continue;
    const existing = svcAction.get(s.value.id);
    if (existing) existing.service = { ...existing.service, virtualIPs: want };
    else out.push({ kind: 'service', version: s.version, service: { ...s.value, virtualIPs: want } });
  }
  const svcById = new Map(services.map((s) => [s.value.id, s.value]));
  for (const a of out) {
    if (a.kind !== 'create' || a.task.networks) continue;
    const s = svcById.get(a.task.ServiceID);
    const nets = s ? serviceNetworks(s.spec).map((n) => byId.get(n.Target)).filter((n): n is NetworkRecord => !!n) : [];
    if (nets.length) a.task = { ...a.task, networks: nets.map((n) => ({ networkId: n.Id, addr: take(n) })) };
  }
  return out;
}
