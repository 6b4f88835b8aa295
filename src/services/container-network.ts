// A container's networking: which networks it is configured on (rec.Networks, keyed by network name), its live
// endpoints while it runs (rec.Endpoints), plugging and unplugging them through the networks' CNI drivers in the
// container's named netns, connect/disconnect, legacy links, and the files the engine writes for it
// (/etc/hosts, /etc/hostname, /etc/resolv.conf). Containers on one user-defined network find each other by the
// embedded resolver (services/dns.ts, docs/dns.md) and through their /etc/hosts files, rewritten as peers come and go.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { BerthError, conflict, forbidden, invalidParameter, notFound, StartRefusal } from '../errors';
import type { Logger } from '../log';
import { setupLoopback } from '../network/bridge';
import { contains, contains6, ipToInt, isIPv6, parseCidr, parseCidr6 } from '../network/ipam';
import { createNetns, deleteNetns, nameNetnsOf, netnsPath } from '../network/sandbox';
import type { ContainerStore } from '../store/containers';
import type { NetworkService } from './networks';
import type { DnsService } from './dns';
import { EMBEDDED_DNS } from '../network/sandbox';
import type { Endpoint, EndpointConfig, NetworkRecord } from '../types/network';
import type { ContainerRecord } from '../types/container';
import { own } from '../translate/own';

/** A fixed address as create and connect check it: it parses (the engine's 400 `invalid IPv4 address: X`). */
function checkAddressSyntax(ipam: EndpointConfig['IPAMConfig'] | undefined): void {
  const parses = (ip: string, v6: boolean) => {
    try {
      if (v6) contains6(parseCidr6('::/0'), ip);
      else ipToInt(ip);
      return isIPv6(ip) === v6;
    } catch {
      return false;
    }
  };
  if (ipam?.IPv4Address && !parses(ipam.IPv4Address, false)) throw invalidParameter(`invalid IPv4 address: ${ipam.IPv4Address}`);
  if (ipam?.IPv6Address && !parses(ipam.IPv6Address, true)) throw invalidParameter(`invalid IPv6 address: ${ipam.IPv6Address}`);
}

/**
 * Resolves after the writes queued so far went out (a check-phase turn of the event loop): a CNI plugin's exec
 * blocks the loop while it forks, so the containerd call made just before it (the task's create at start, its
 * deletion at exit) is sent first, and runc and the plugin work at the same time.
 */
function afterPendingWrites(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

export const HOSTS_BASE = ['127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', 'fe00::0\tip6-localnet', 'ff00::0\tip6-mcastprefix', 'ff02::1\tip6-allnodes', 'ff02::2\tip6-allrouters'];

/** The network a NetworkMode names ("default" is the bridge), or undefined for container:<id>. */
export function modeNetwork(mode: string | undefined): string | undefined {
  if (!mode || mode === 'default') return 'bridge';
  if (mode.startsWith('container:')) return undefined;
  return mode;
}

/** Whether NetworkMode names a user-defined network (not bridge/default, host, none or container:). */
export function isUserDefinedMode(mode: string | undefined): boolean {
  const m = mode || 'default';
  return !['default', 'bridge', 'host', 'none'].includes(m) && !m.startsWith('container:');
}

/**
 * Whether the container lives in a namespace berth makes ahead (bridge and user-defined networks). NetworkMode none's
 * is made by runc (its loopback up) and named once the task runs (nameSandbox).
 */
export function ownsNetns(mode: string | undefined): boolean {
  const m = mode || 'default';
  return m !== 'host' && m !== 'none' && !m.startsWith('container:');
}

/** A legacy link "name" or "name:alias" (also "/name:/me/alias") as [target, alias]. */
export function parseLink(link: string): [string, string] {
  const i = link.indexOf(':');
  const target = (i < 0 ? link : link.slice(0, i)).replace(/^\//, '');
  let alias = i < 0 ? target : link.slice(i + 1);
  alias = alias.slice(alias.lastIndexOf('/') + 1);
  return [target, alias];
}

/** The environment the engine gives a container for each link (ALIAS_PORT_80_TCP=..., ALIAS_NAME, ALIAS_ENV_x). */
export function linkEnv(alias: string, selfName: string, target: ContainerRecord, ip: string): string[] {
  const p = alias.toUpperCase().replace(/-/g, '_');
  const env: string[] = [];
  const ports = Object.keys(target.Config.ExposedPorts ?? {})
    .map((k) => (k.includes('/') ? k : `${k}/tcp`))
    .sort((a, b) => Number(a.split('/')[0]) - Number(b.split('/')[0]) || a.localeCompare(b));
  if (ports.length) {
    const [port, proto] = ports[0].split('/');
    env.push(`${p}_PORT=${proto}://${ip}:${port}`);
  }
  for (const k of ports) {
    const [port, proto] = k.split('/');
    const pre = `${p}_PORT_${port}_${proto.toUpperCase()}`;
    env.push(`${pre}=${proto}://${ip}:${port}`, `${pre}_ADDR=${ip}`, `${pre}_PORT=${port}`, `${pre}_PROTO=${proto}`);
  }
  env.push(`${p}_NAME=${selfName}/${alias}`);
  for (const e of target.Config.Env ?? []) {
    const k = e.slice(0, e.indexOf('=') < 0 ? e.length : e.indexOf('='));
    if (['HOME', 'HOSTNAME', 'PATH'].includes(k)) continue;
    env.push(`${p}_ENV_${e}`);
  }
  return env;
}

export interface NetworkingDeps {
  networks: NetworkService;
  store: ContainerStore;
  logger: Logger;
  /** The daemon's dns, dns-search and dns-opts (daemon.json): used when a container's HostConfig sets none. */
  dnsDefaults?: { dns: string[]; search: string[]; options: string[] };
  /** The embedded resolver (docs/dns.md); without it names resolve through /etc/hosts only. */
  dns?: DnsService;
}

export class ContainerNetworking {
  constructor(private readonly d: NetworkingDeps) {}

  /** The networks a new container is configured on, from NetworkMode and NetworkingConfig. */
  initialNetworks(hc: { NetworkMode?: string }, endpoints: Record<string, { IPAMConfig?: EndpointConfig['IPAMConfig']; Aliases?: string[] | null; Links?: string[] | null }> | undefined): Record<string, EndpointConfig> {
    const name = modeNetwork(hc.NetworkMode);
    const given = Object.keys(endpoints ?? {});
    if (given.length > 1) throw invalidParameter(`Container cannot be connected to network endpoints: ${given.join(', ')}`);
    if (!name) return {};
    const net = this.d.networks.tryFind(name);
    if (!net) {
      // As the engine: a network that is not there at create is the start's error (404 network X not found), the
      // create keeps it by name with no id (the docker CLI takes a create's 404 for a missing image, and pulls)
      const cfg = own(endpoints, name) ?? (given.length ? own(endpoints, given[0]) : undefined);
      return { [name]: { NetworkID: '', Aliases: cfg?.Aliases ?? null, IPAMConfig: cfg?.IPAMConfig ?? null, Links: cfg?.Links ?? null } };
    }
    const cfg = own(endpoints, name) ?? own(endpoints, net.Name) ?? own(endpoints, net.Id) ?? (given.length ? own(endpoints, given[0]) : undefined);
    if (cfg?.Aliases?.length && (net.Predefined)) throw invalidParameter('network-scoped alias is supported only for containers in user defined networks');
    checkAddressSyntax(cfg?.IPAMConfig);
    return { [net.Name]: { NetworkID: net.Id, Aliases: cfg?.Aliases ?? null, IPAMConfig: cfg?.IPAMConfig ?? null, Links: cfg?.Links ?? null } };
  }

  /**
   * A fixed address, as the engine checks it when the endpoint is made (at start, or at a connect of a running
   * container; create and connect only parse it): a user-defined network with a subnet of its own, in one of its
   * subnets (anywhere in it: the IP range is for the addresses handed out), not its network or broadcast address.
   * Refusals are StartRefusals in the reference's words and statuses (the subnet's 400 where it answers 500).
   */
  private checkAddress(net: NetworkRecord, ip: string): void {
    if (net.Predefined) throw new StartRefusal(invalidParameter('user specified IP address is supported on user defined networks only'));
    if (!net.ConfiguredSubnet) throw new StartRefusal(invalidParameter('user specified IP address is supported only when connecting to networks with user configured subnets'));
    const v6 = isIPv6(ip);
    const subnet = net.IPAM.Config.find((c) => c.Subnet && isIPv6(c.Subnet) === v6 && (v6 ? contains6(parseCidr6(c.Subnet), ip) : contains(parseCidr(c.Subnet), ip)))?.Subnet;
    if (!subnet) throw new StartRefusal(invalidParameter(`Invalid address ${ip}: It does not belong to any of this network's subnets`));
    if (!v6) {
      const c = parseCidr(subnet);
      const n = ipToInt(ip);
      if (c.prefix < 31 && (n === c.base || n === c.base + 2 ** (32 - c.prefix) - 1)) throw new StartRefusal(forbidden('Address already in use'));
    }
  }

  /** Configured networks; records from before user networks existed only had the mode. */
  configured(rec: ContainerRecord): Record<string, EndpointConfig> {
    if (!rec.Networks) {
      const name = modeNetwork(rec.HostConfig.NetworkMode);
      const net = name ? this.d.networks.tryFind(name) : undefined;
      rec.Networks = net ? { [net.Name]: { NetworkID: net.Id, Aliases: null, IPAMConfig: null, Links: null } } : {};
      const legacy = (rec as { Endpoint?: Endpoint }).Endpoint;
      if (legacy) {
        rec.Endpoints = { bridge: { ...legacy, network: 'bridge', ifname: 'eth0' } };
        delete (rec as { Endpoint?: Endpoint }).Endpoint;
      }
    }
    return rec.Networks;
  }

  private networkOf(name: string, cfg: EndpointConfig): NetworkRecord {
    return this.d.networks.tryFind(cfg.NetworkID) ?? this.d.networks.find(name);
  }

  /** DELETE /networks/(id): refused while containers have endpoints on it. */
  async removeNetwork(ref: string): Promise<void> {
    const id = this.d.networks.tryFind(ref)?.Id;
    await this.d.networks.remove(ref, (nid) => this.endpointsOn(nid).length > 0);
    if (id) await this.d.dns?.forget(id);
  }

  /** The join or leave event of a container in NetworkMode host or none (no endpoint is plugged for those). */
  announcePredefined(rec: ContainerRecord, action: 'connect' | 'disconnect'): void {
    const mode = rec.HostConfig.NetworkMode ?? '';
    const net = mode === 'none' || mode === 'host' ? this.d.networks.tryFind(mode) : undefined;
    if (net) this.d.networks.publishEndpoint(action, net, rec.Id);
  }

  /** Running containers with a live endpoint on the network (the network's "Containers"). */
  endpointsOn(networkId: string): { rec: ContainerRecord; ep: Endpoint }[] {
    const out: { rec: ContainerRecord; ep: Endpoint }[] = [];
    for (const rec of this.d.store.all()) {
      this.configured(rec);
      for (const ep of Object.values(rec.Endpoints ?? {})) if (ep.networkId === networkId) out.push({ rec, ep });
    }
    return out;
  }

  /** Plugs every configured bridge-driver network into the container's netns (the task is being created). */
  async setup(rec: ContainerRecord): Promise<void> {
    if (rec.HostConfig.NetworkMode === 'none') {
      // the null driver's endpoint, with nothing to plug in (its join event is announcePredefined's)
      const none = this.d.networks.tryFind('none');
      rec.Endpoints = none ? { [none.Name]: { network: none.Name, networkId: none.Id, endpointId: crypto.randomBytes(32).toString('hex'), ip: '', prefixLen: 0, gateway: '', mac: '', ports: {}, mappings: [] } } : {};
      return;
    }
    if (!ownsNetns(rec.HostConfig.NetworkMode)) return;
    const nets = Object.entries(this.configured(rec));
    const ns = await createNetns(rec.Id);
    await afterPendingWrites();
    const mode = modeNetwork(rec.HostConfig.NetworkMode);
    const primary = mode ? this.d.networks.tryFind(mode)?.Name ?? mode : undefined;
    rec.Endpoints = {};
    const plug = async ([name, cfg]: [string, EndpointConfig], ifname: string): Promise<void> => {
      const net = this.networkOf(name, cfg);
      const isPrimary = net.Name === primary;
      rec.Endpoints![net.Name] = await this.plug(rec, net, cfg, ns, ifname, isPrimary);
    };
    const ordered = [...nets.filter(([n]) => n === primary), ...nets.filter(([n]) => n !== primary)];
    try {
      await Promise.all([setupLoopback(rec.Id, ns), ...ordered.map((e, i) => plug(e, `eth${i}`))]);
    } catch (err) {
      await this.teardown(rec).catch(() => undefined);
      throw err;
    }
  }

  private async plug(rec: ContainerRecord, net: NetworkRecord, cfg: EndpointConfig, ns: string, ifname: string, primary: boolean): Promise<Endpoint> {
    const driver = this.d.networks.driver(net.Id);
    if (!driver) throw invalidParameter(`network ${net.Name} cannot be joined`);
    const ports = primary ? { exposed: Object.keys(rec.Config.ExposedPorts ?? {}), bindings: rec.HostConfig.PortBindings ?? {}, publishAll: !!rec.HostConfig.PublishAllPorts } : undefined;
    const endpointId = crypto.randomBytes(32).toString('hex');
    // (a swarm task's address on an overlay network was given by the swarm's leader: docs/overlay.md)
    if (cfg.IPAMConfig?.IPv4Address && net.Scope !== 'swarm') this.checkAddress(net, cfg.IPAMConfig.IPv4Address);
    if (cfg.IPAMConfig?.IPv6Address) this.checkAddress(net, cfg.IPAMConfig.IPv6Address);
    if (ports) this.checkPortsFree(rec, ports.bindings, endpointId);
    const ep = await driver.attach(rec.Id, ns, { ifname, ports, ip: cfg.IPAMConfig?.IPv4Address || undefined, ip6: cfg.IPAMConfig?.IPv6Address || undefined, mac: (primary && rec.Config.MacAddress) || undefined });
    this.d.networks.publishEndpoint('connect', net, rec.Id);
    return { ...ep, network: net.Name, networkId: net.Id, endpointId };
  }

  /**
   * A host port another container publishes is refused, as the engine's port allocator refuses it (berth's
   * published ports are NAT rules, so nothing on the host would say so): the same protocol and port on the same
   * address, or on all addresses on either side. A client's mistake: 409 (the reference's 500), its message.
   */
  private checkPortsFree(rec: ContainerRecord, bindings: Record<string, { HostIp?: string; HostPort?: string }[] | null>, endpointId: string): void {
    const all = (ip: string) => ip === '' || ip === '0.0.0.0';
    const used: { hostIP: string; hostPort: number; protocol: string }[] = [];
    for (const other of this.d.store.all()) {
      if (other.Id === rec.Id || !other.State.Running) continue;
      for (const ep of Object.values(other.Endpoints ?? {})) used.push(...(ep.mappings ?? []));
    }
    if (used.length === 0) return;
    for (const [key, list] of Object.entries(bindings ?? {})) {
      const proto = key.split('/')[1] ?? 'tcp';
      for (const b of list ?? []) {
        const port = /^\d+/.exec(b.HostPort ?? '')?.[0];
        if (!port || Number(port) === 0) continue;
        const ip = b.HostIp ?? '';
        const clash = used.find((u) => u.protocol === proto && u.hostPort === Number(port) && (all(ip) || all(u.hostIP) || u.hostIP === ip));
        if (!clash) continue;
        // the engine's allocator knows the port on the same address; on another one its proxy's bind fails
        const why = all(ip) === all(clash.hostIP) ? `Bind for ${ip || '0.0.0.0'}:${port} failed: port is already allocated` : `Error starting userland proxy: listen ${proto}4 ${ip || '0.0.0.0'}:${port}: bind: address already in use`;
        throw conflict(`driver failed programming external connectivity on endpoint ${rec.Name.replace(/^\//, '')} (${endpointId}): ${why}`);
      }
    }
  }

  /** The sandboxes being named (nameSandbox), by container id. */
  private readonly naming = new Map<string, Promise<unknown>>();

  /**
   * NetworkMode none: the namespace runc made for the task (with its loopback up) gets the container's netns name,
   * as the engine's sandbox has one (inspect's SandboxKey), off the start's path: a link to the task's /proc/PID/ns/net
   * (no process runs for it; sandbox.ts nameNetnsOf). The teardown waits for it, then deletes it.
   */
  nameSandbox(rec: ContainerRecord, pid: number): void {
    if (rec.HostConfig.NetworkMode !== 'none' || !pid) return;
    const naming = nameNetnsOf(rec.Id, pid)
      .catch((err) => this.d.logger.debug('cannot name the sandbox of a container in NetworkMode none', { id: rec.Id, err: String(err) }))
      .finally(() => {
        if (this.naming.get(rec.Id) === naming) this.naming.delete(rec.Id);
      });
    this.naming.set(rec.Id, naming);
  }

  /** The networks of the container's live endpoints that have something plugged in (not NetworkMode none's). */
  plugged(rec: ContainerRecord): string[] {
    return Object.values(rec.Endpoints ?? {}).filter((ep) => !this.isNull(ep)).map((e) => e.networkId ?? '');
  }

  private isNull(ep: Endpoint): boolean {
    return !!ep.networkId && this.d.networks.tryFind(ep.networkId)?.Driver === 'null';
  }

  /** Unplugs every live endpoint and deletes the netns (the task is gone). */
  async teardown(rec: ContainerRecord): Promise<void> {
    const eps = Object.values(rec.Endpoints ?? {});
    rec.Endpoints = undefined;
    const ns = netnsPath(rec.Id);
    await this.naming.get(rec.Id);
    await afterPendingWrites();
    // (the null driver's endpoint of NetworkMode none has nothing to unplug; its leave event is announcePredefined's)
    await Promise.all(eps.filter((ep) => !this.isNull(ep)).map((ep) => this.unplug(rec, ep, ns)));
    await deleteNetns(rec.Id);
  }

  private async unplug(rec: ContainerRecord, ep: Endpoint, ns: string): Promise<void> {
    const net = ep.networkId ? this.d.networks.tryFind(ep.networkId) : this.d.networks.defaultBridge;
    const driver = net ? this.d.networks.driver(net.Id) : undefined;
    if (driver) await driver.detach(rec.Id, ns, ep);
    if (net) this.d.networks.publishEndpoint('disconnect', net, rec.Id);
  }

  /** At start-up: leases of containers that are not running are released (their teardown was cut short). */
  async releaseStaleLeases(): Promise<void> {
    const running = new Set(this.d.store.all().filter((r) => r.State.Running || r.Endpoints).map((r) => r.Id));
    for (const n of this.d.networks.list()) {
      const released = await this.d.networks.driver(n.Id)?.releaseStaleLeases(running);
      if (released) this.d.logger.info('released stale address leases', { network: n.Name, count: released });
    }
  }

  /** `POST /networks/(id)/connect`: configure, and plug in at once when the container runs. */
  async connect(rec: ContainerRecord, net: NetworkRecord, cfg: { IPAMConfig?: EndpointConfig['IPAMConfig']; Aliases?: string[] | null; Links?: string[] | null }): Promise<void> {
    const mode = rec.HostConfig.NetworkMode || 'default';
    if (mode === 'host' || mode.startsWith('container:')) throw invalidParameter('container sharing network namespace with another container or host cannot be connected to any other network');
    if (net.Driver === 'host' || net.Driver === 'null') throw invalidParameter('container cannot be disconnected from host network or connected to host network');
    if (mode === 'none') throw invalidParameter('container cannot be connected to multiple networks with one of the networks in private (none) mode');
    const nets = this.configured(rec);
    // As the reference: a container that is not running keeps the network's configuration it has (200, no change)
    if (nets[net.Name] && !rec.State.Running) return;
    if (nets[net.Name] && rec.Endpoints?.[net.Name]) throw new BerthError('Forbidden', `endpoint with name ${rec.Name.slice(1)} already exists in network ${net.Name}`);
    if (cfg.Aliases?.length && net.Predefined) throw invalidParameter('network-scoped alias is supported only for containers in user defined networks');
    // (a swarm task's address on an overlay network was given by the swarm's leader: docs/overlay.md)
    checkAddressSyntax(cfg.IPAMConfig);
    let aliases = cfg.Aliases ?? null;
    // the reference adds the short id to a user-defined network's aliases at a connect (a running container's shows
    // it from its endpoint)
    const short = rec.Id.slice(0, 12);
    if (!rec.State.Running && !net.Predefined && !aliases?.includes(short)) aliases = [...(aliases ?? []), short];
    const ec: EndpointConfig = { NetworkID: net.Id, Aliases: aliases, IPAMConfig: cfg.IPAMConfig ?? null, Links: cfg.Links ?? null };
    if (rec.State.Running) {
      const used = new Set(Object.values(rec.Endpoints ?? {}).map((e) => e.ifname));
      let i = 0;
      while (used.has(`eth${i}`)) i++;
      const ep = await this.plug(rec, net, ec, netnsPath(rec.Id), `eth${i}`, false).catch((err) => {
        throw err instanceof StartRefusal ? err.answer : err;
      });
      rec.Endpoints = { ...(rec.Endpoints ?? {}), [net.Name]: ep };
    }
    nets[net.Name] = ec;
    await this.d.store.save(rec);
    // (a container that is not running is announced on the network when it starts: the reference's connect sends none)
    if (rec.State.Running) await this.afterChange(rec, [net.Id]);
  }

  /** `POST /networks/(id)/disconnect`. */
  async disconnect(rec: ContainerRecord, net: NetworkRecord): Promise<void> {
    const nets = this.configured(rec);
    if (!nets[net.Name]) throw new BerthError('System', `container ${rec.Id} is not connected to network ${net.Name}`);
    if (net.Driver === 'host') throw invalidParameter('container cannot be disconnected from host network or connected to host network');
    const ep = rec.Endpoints?.[net.Name];
    if (ep) {
      await this.unplug(rec, ep, netnsPath(rec.Id));
      delete rec.Endpoints![net.Name];
    } else this.d.networks.publishEndpoint('disconnect', net, rec.Id);
    delete nets[net.Name];
    await this.d.store.save(rec);
    if (rec.State.Running) await this.afterChange(rec, [net.Id]);
  }

  /** Rewrites the container's own files and its peers' /etc/hosts on the given networks. */
  async afterChange(rec: ContainerRecord, networkIds?: string[], self = true): Promise<void> {
    if (self) {
      await this.writeEtcFiles(rec);
      await this.d.dns?.attach(rec);
    }
    const ids = new Set(networkIds ?? Object.values(rec.Endpoints ?? {}).map((e) => e.networkId));
    const peers = new Set<ContainerRecord>();
    for (const id of ids) {
      if (!id) continue;
      const net = this.d.networks.tryFind(id);
      if (!net || net.Predefined) continue;
      for (const { rec: p } of this.endpointsOn(id)) if (p.Id !== rec.Id) peers.add(p);
    }
    await Promise.all([...peers].map((p) => this.writeHosts(p).catch(() => undefined)));
  }

  /** Peers on the container's user-defined networks: "ip name aliases... shortid". */
  private peerLines(rec: ContainerRecord): string[] {
    const lines: string[] = [];
    for (const ep of Object.values(rec.Endpoints ?? {})) {
      const net = ep.networkId ? this.d.networks.tryFind(ep.networkId) : undefined;
      if (!net || net.Predefined) continue;
      for (const { rec: p, ep: pep } of this.endpointsOn(net.Id)) {
        if (p.Id === rec.Id) continue;
        const cfg = p.Networks?.[net.Name];
        const names = [p.Name.slice(1), ...(cfg?.Aliases ?? []), p.Id.slice(0, 12)];
        lines.push(`${pep.ip}\t${[...new Set(names)].join(' ')}`);
      }
    }
    // Links declared on this container's user-network endpoints are aliases for their targets.
    for (const [name, cfg] of Object.entries(rec.Networks ?? {})) {
      for (const l of cfg.Links ?? []) {
        const [target, alias] = parseLink(l);
        const t = this.d.store.tryFind(target);
        const tip = own(t?.Endpoints, name)?.ip;
        if (t && tip) lines.push(`${tip}\t${alias}`);
      }
    }
    return lines;
  }

  /** Legacy links on the default bridge: their targets must run; hosts lines and environment. */
  linked(rec: ContainerRecord): { hosts: string[]; env: string[] } {
    const hosts: string[] = [];
    const env: string[] = [];
    if (isUserDefinedMode(rec.HostConfig.NetworkMode)) return { hosts, env };
    for (const l of rec.HostConfig.Links ?? []) {
      const [target, alias] = parseLink(l);
      let t: ContainerRecord;
      try {
        t = this.d.store.find(target);
      } catch {
        throw notFound(`Could not get container for ${target}`);
      }
      const ip = Object.values(t.Endpoints ?? {}).find((e) => e.network === 'bridge')?.ip;
      if (!t.State.Running || !ip) throw conflict(`Cannot link to a non running container: ${t.Name} AS ${rec.Name}/${alias}`);
      hosts.push(`${ip}\t${[...new Set([alias, t.Id.slice(0, 12), t.Name.slice(1)])].join(' ')}`);
      env.push(...linkEnv(alias, rec.Name, t, ip));
    }
    return { hosts, env };
  }

  async writeHosts(rec: ContainerRecord): Promise<void> {
    const hc = rec.HostConfig;
    const own = Object.values(rec.Endpoints ?? {}).sort((a, b) => (a.ifname ?? '').localeCompare(b.ifname ?? ''))[0];
    const host = rec.Config.Domainname ? `${rec.Config.Hostname}.${rec.Config.Domainname} ${rec.Config.Hostname}` : rec.Config.Hostname;
    let links: string[] = [];
    try {
      links = this.linked(rec).hosts;
    } catch {
      /* a link target went away: its line is dropped */
    }
    const hosts = [
      ...HOSTS_BASE,
      ...(hc.ExtraHosts ?? []).map((h) => {
        const i = h.indexOf(':');
        return `${h.slice(i + 1)}\t${h.slice(0, i)}`;
      }),
      ...links,
      // (a line per address the endpoint has: NetworkMode none's has none, and the reference writes no line)
      ...(own?.ip ? [`${own.ip}\t${host}`] : []),
      ...(own?.ip6 ? [`${own.ip6}\t${host}`] : []),
      ...this.peerLines(rec),
    ];
    // In place: the file is bind-mounted into the container, so its inode must stay.
    this.writeEtcFile(rec.HostsPath, hosts.join('\n') + '\n');
  }

  /**
   * One of a container's /etc files (a few hundred bytes, no fsync: rewritten at each start), written at once on the
   * main thread: an open, a write and a close there cost less CPU than the same three as thread-pool round trips
   * with a FileHandle and their promises, on the path of every create and start (issue 20's profile).
   */
  private writeEtcFile(file: string, text: string): void {
    fs.writeFileSync(file, text);
  }

  /** The container's /etc/hosts, /etc/hostname and /etc/resolv.conf. */
  async writeEtcFiles(rec: ContainerRecord): Promise<void> {
    // all three tried before a failure is thrown: a create's undo removes the folder after the last write
    let failed: unknown;
    for (const write of [() => this.writeHosts(rec), () => this.writeEtcFile(rec.HostnamePath, `${rec.Config.Hostname}\n`), () => this.writeResolvConf(rec)]) {
      try {
        await write();
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed !== undefined) throw failed;
  }

  private writeResolvConf(rec: ContainerRecord): void {
    const hc = rec.HostConfig;
    let host = '';
    try {
      host = fs.readFileSync('/etc/resolv.conf', 'utf8'); // (a small file: read at once, as the embedded DNS does)
    } catch {
      /* none */
    }
    let servers = host.split('\n').filter((l) => /^\s*nameserver\s/.test(l)).map((l) => l.trim().split(/\s+/)[1]).filter((s) => !/^127\.|^::1$/.test(s));
    let search = host.split('\n').filter((l) => /^\s*search\s/.test(l)).flatMap((l) => l.trim().split(/\s+/).slice(1));
    let options = host.split('\n').filter((l) => /^\s*options\s/.test(l)).flatMap((l) => l.trim().split(/\s+/).slice(1));
    const def = this.d.dnsDefaults;
    if (hc.Dns?.length) servers = hc.Dns;
    else if (def?.dns.length) servers = def.dns;
    if (hc.DnsSearch?.length) search = hc.DnsSearch.filter((s) => s !== '.');
    else if (def?.search.length) search = def.search.filter((s) => s !== '.');
    if (hc.DnsOptions?.length) options = hc.DnsOptions;
    else if (def?.options.length) options = def.options;
    if (servers.length === 0 && hc.NetworkMode !== 'host') servers = ['8.8.8.8', '8.8.4.4'];
    // On a network with the embedded resolver the engine names 127.0.0.11 (which forwards to `servers`) and adds
    // ndots:0 unless an ndots option was given.
    if (this.d.dns?.usesEmbedded(rec)) {
      servers = [EMBEDDED_DNS];
      if (!options.some((o) => o.startsWith('ndots:'))) options = [...options, 'ndots:0'];
    }
    const resolv = [...(search.length ? [`search ${search.join(' ')}`] : []), ...servers.map((s) => `nameserver ${s}`), ...(options.length ? [`options ${options.join(' ')}`] : [])];
    this.writeEtcFile(rec.ResolvConfPath, resolv.join('\n') + '\n');
  }
}
