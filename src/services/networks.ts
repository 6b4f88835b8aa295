// Networks: the predefined bridge, host and none, and user-defined bridge networks. Records persist as one JSON
// file per network under <dataRoot>/network/networks; each bridge network has a CNI driver (src/network/bridge).
// Which containers use a network is the container service's knowledge, reached through a hook.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BerthError, conflict, forbidden, invalidParameter, notFound, systemError } from '../errors';
import type { Logger } from '../log';
import { BridgeNetwork } from '../network/bridge';
import { contains, contains6, defaultGateway, defaultGateway6, isIPv6, overlaps, overlapsAny, parseCidr, parseCidr6, pickSubnet, rangeBounds } from '../network/ipam';
import { readJSONFileSync, writeFileAtomic } from '../store/atomic';
import { rfc3339Nano } from '../translate/time';
import { now } from '../runtime/clock';
import type { EventPublisher } from '../types/event';
import type { CreateNetworkRequest, IPAMEntry, NetworkDriver, NetworkRecord, SwarmNetworkSource } from '../types/network';

const execFileP = promisify(execFile);

export interface NetworkServiceOptions {
  dataRoot: string;
  bridgeName: string;
  bridgeSubnet: string;
  /** daemon.json bip: the default bridge's own address (else the subnet's first). */
  bridgeGateway?: string;
  /** daemon.json default-address-pools: where networks without a subnet get one (else the engine's defaults). */
  addressPools?: { base: string; size: number }[];
  /** daemon.json iptables (default true): false installs no host rules (NAT, forwarding, published ports). */
  iptables?: boolean;
  /** daemon.json ip-forward (default true): false leaves net.ipv4.ip_forward as it is. */
  ipForward?: boolean;
  /** --ipv6: the default bridge is dual-stack on bridgeSubnet6 (--fixed-cidr-v6, which is listed either way). */
  bridgeIPv6?: boolean;
  bridgeSubnet6?: string;
  events: EventPublisher;
  logger: Logger;
}

const PREDEFINED = ['bridge', 'host', 'none'];

export class NetworkService {
  private readonly dir: string;
  private readonly nets = new Map<string, NetworkRecord>();
  private readonly drivers = new Map<string, BridgeNetwork>();
  /** The swarm's overlay networks (docs/overlay.md), set once the cluster exists. */
  private swarm?: SwarmNetworkSource;

  constructor(private readonly o: NetworkServiceOptions) {
    this.dir = path.join(o.dataRoot, 'network', 'networks');
    fs.mkdirSync(this.dir, { recursive: true });
    for (const f of fs.readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      const n = readJSONFileSync<NetworkRecord>(path.join(this.dir, f));
      if (n) this.nets.set(n.Id, n);
    }
    this.ensurePredefined();
    for (const n of this.nets.values()) if (n.Driver === 'bridge') this.drivers.set(n.Id, this.makeDriver(n));
  }

  private ensurePredefined(): void {
    const created = rfc3339Nano(now());
    const base = { Created: created, Scope: 'local' as const, EnableIPv6: false, Internal: false, Options: {}, Labels: {}, Predefined: true };
    const want: NetworkRecord[] = [
      {
        ...base,
        Name: 'bridge',
        Id: '',
        Driver: 'bridge',
        // as the engine lists it: the IPv6 subnet without its gateway
        IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: this.o.bridgeSubnet, Gateway: this.o.bridgeGateway ?? defaultGateway(this.o.bridgeSubnet) }, ...(this.o.bridgeSubnet6 ? [{ Subnet: this.o.bridgeSubnet6 }] : [])] },
        EnableIPv6: !!this.o.bridgeIPv6,
        Options: {
          'com.docker.network.bridge.default_bridge': 'true',
          'com.docker.network.bridge.enable_icc': 'true',
          'com.docker.network.bridge.enable_ip_masquerade': 'true',
          'com.docker.network.bridge.host_binding_ipv4': '0.0.0.0',
          'com.docker.network.bridge.name': this.o.bridgeName,
          'com.docker.network.driver.mtu': '1500',
        },
        BridgeName: this.o.bridgeName,
      },
      { ...base, Name: 'host', Id: '', Driver: 'host', IPAM: { Driver: 'default', Options: null, Config: [] } },
      { ...base, Name: 'none', Id: '', Driver: 'null', IPAM: { Driver: 'default', Options: null, Config: [] } },
    ];
    for (const w of want) {
      const have = [...this.nets.values()].find((n) => n.Predefined && n.Name === w.Name);
      if (have) {
        // The default bridge follows the daemon's flags.
        if (w.Name === 'bridge' && (have.BridgeName !== w.BridgeName || JSON.stringify(have.IPAM.Config) !== JSON.stringify(w.IPAM.Config) || have.EnableIPv6 !== w.EnableIPv6)) {
          Object.assign(have, { IPAM: w.IPAM, Options: w.Options, BridgeName: w.BridgeName, EnableIPv6: w.EnableIPv6 });
          this.persistSync(have);
        }
        continue;
      }
      w.Id = crypto.randomBytes(32).toString('hex');
      this.nets.set(w.Id, w);
      this.persistSync(w);
    }
  }

  private persistSync(n: NetworkRecord): void {
    fs.writeFileSync(path.join(this.dir, `${n.Id}.json`), JSON.stringify(n));
  }

  private makeDriver(n: NetworkRecord): BridgeNetwork {
    const ipam = n.IPAM.Config.find((c) => !c.Subnet || !isIPv6(c.Subnet)) ?? {};
    const ipam6 = n.EnableIPv6 ? n.IPAM.Config.find((c) => c.Subnet && isIPv6(c.Subnet)) : undefined;
    const subnet = ipam.Subnet ?? this.o.bridgeSubnet;
    return new BridgeNetwork(
      {
        cniName: n.Predefined ? `berth-${n.BridgeName}` : `berth-${n.Id.slice(0, 12)}`,
        title: `${n.Name} (${n.Id})`,
        bridgeName: n.BridgeName!,
        subnet,
        gateway: ipam.Gateway,
        ipRange: ipam.IPRange,
        subnet6: ipam6?.Subnet,
        gateway6: ipam6?.Subnet ? ipam6.Gateway ?? defaultGateway6(ipam6.Subnet) : undefined,
        // the engine's default bridge makes an interface's IPv6 address from its MAC when 48 host bits are left
        v6FromMac: !!(n.Predefined && ipam6?.Subnet && parseCidr6(ipam6.Subnet).prefix <= 80),
        reserved: Object.values(ipam.AuxiliaryAddresses ?? {}),
        internal: n.Internal,
        dataRoot: this.o.dataRoot,
        followsConfig: !!n.Predefined,
        iptables: this.o.iptables ?? true,
        ipForward: this.o.ipForward ?? true,
      },
      this.o.logger,
    );
  }

  /** The swarm's networks are listed with the node's own (the cluster gives them; services never import it). */
  setSwarmNetworks(source: SwarmNetworkSource): void {
    this.swarm = source;
  }

  /** Reads the swarm's networks again (before a list or an inspect: another node may have made one). */
  async refresh(): Promise<void> {
    await this.swarm?.refresh().catch(() => undefined);
  }

  list(): NetworkRecord[] {
    return [...this.nets.values(), ...(this.swarm?.list() ?? [])];
  }

  get defaultBridge(): NetworkRecord {
    return this.list().find((n) => n.Predefined && n.Name === 'bridge')!;
  }

  byName(name: string): NetworkRecord | undefined {
    return this.list().find((n) => n.Name === name);
  }

  /** The engine's lookup: exact id, exact name, then a unique id prefix. */
  find(ref: string): NetworkRecord {
    const byId = this.nets.get(ref) ?? this.swarm?.list().find((n) => n.Id === ref);
    if (byId) return byId;
    const named = this.list().filter((n) => n.Name === ref);
    if (named.length === 1) return named[0];
    if (named.length > 1) throw invalidParameter(`${named.length} matches found based on name: network ${ref} is ambiguous`);
    const pre = ref ? this.list().filter((n) => n.Id.startsWith(ref)) : [];
    if (pre.length === 1) return pre[0];
    if (pre.length > 1) throw invalidParameter(`${pre.length} matches found based on ID prefix: network ${ref} is ambiguous`);
    throw notFound(`network ${ref} not found`);
  }

  tryFind(ref: string): NetworkRecord | undefined {
    try {
      return this.find(ref);
    } catch (err) {
      if (err instanceof BerthError && err.kind === 'NotFound') return undefined;
      throw err;
    }
  }

  driver(id: string): NetworkDriver | undefined {
    return this.drivers.get(id) ?? this.swarm?.driver(id);
  }

  /** Subnets already used by berth's networks and by the host's routes. */
  private async takenSubnets(): Promise<string[]> {
    const out = this.list().flatMap((n) => n.IPAM.Config.map((c) => c.Subnet).filter((s): s is string => !!s && !isIPv6(s)));
    try {
      const { stdout } = await execFileP('ip', ['-4', 'route', 'show']);
      for (const line of stdout.split('\n')) {
        const dst = line.trim().split(/\s+/)[0];
        if (dst && dst !== 'default' && /^[\d.]+\/\d+$/.test(dst)) out.push(dst);
      }
    } catch {
      /* no iproute2: only berth's own networks count */
    }
    return out;
  }

  async create(req: CreateNetworkRequest): Promise<{ id: string; warning: string }> {
    const name = req.Name ?? '';
    // the reference answers these client mistakes with 500; berth with 400 (README)
    if (!name) throw invalidParameter('invalid name: ');
    if (PREDEFINED.includes(name)) throw forbidden(`operation is not permitted on predefined ${name} network `);
    const driver = req.Driver || 'bridge';
    if (driver === 'overlay' && this.swarm) {
      const r = await this.swarm.create(req);
      this.o.events.publish('network', 'create', r.id, { name, type: 'overlay' });
      return r;
    }
    if (driver !== 'bridge') {
      if (driver === 'host' || driver === 'null') throw forbidden(`only one instance of "${driver}" network is allowed`);
      throw notFound(`plugin "${driver}" not found`);
    }
    let warning = '';
    const same = this.list().find((n) => n.Name === name);
    if (same) {
      if (req.CheckDuplicate) throw conflict(`network with name ${name} already exists`);
      warning = `Network with name ${name} (id : ${same.Id}) already exists`;
    }
    if (req.IPAM?.Driver && req.IPAM.Driver !== 'default') throw notFound(`plugin "${req.IPAM.Driver}" not found`);
    const given = req.IPAM?.Config ?? [];
    // Dual stack as the engine: IPv6 subnets are listed after the IPv4 ones (which get a default pool when only
    // IPv6 ones are given) and used with EnableIPv6 only; without it the engine lists them with no gateway.
    const v6 = this.ipamConfig6(given.filter((g) => g.Subnet && isIPv6(g.Subnet)));
    const config = [...(await this.ipamConfig(given.filter((g) => !g.Subnet || !isIPv6(g.Subnet)))), ...(req.EnableIPv6 ? v6 : v6.map((c) => ({ Subnet: c.Subnet })))];
    const id = crypto.randomBytes(32).toString('hex');
    const rec: NetworkRecord = {
      Name: name,
      Id: id,
      Created: rfc3339Nano(now()),
      Scope: 'local',
      Driver: 'bridge',
      EnableIPv6: !!req.EnableIPv6,
      Internal: !!req.Internal,
      IPAM: { Driver: 'default', Options: req.IPAM?.Options ?? null, Config: config },
      Options: req.Options ?? {},
      Labels: req.Labels ?? {},
      BridgeName: req.Options?.['com.docker.network.bridge.name'] || `br-${id.slice(0, 12)}`,
      ConfiguredSubnet: (req.IPAM?.Config ?? []).length > 0,
    };
    // held in memory at once (its subnet is taken for concurrent creates), dropped again when it cannot be recorded
    // (a full disk): no network is left behind, in memory or on disk
    this.drivers.set(id, this.makeDriver(rec));
    this.nets.set(id, rec);
    try {
      await writeFileAtomic(path.join(this.dir, `${id}.json`), JSON.stringify(rec));
    } catch (err) {
      this.drivers.delete(id);
      this.nets.delete(id);
      throw err;
    }
    this.o.events.publish('network', 'create', id, { name, type: 'bridge' });
    return { id, warning };
  }

  /** The IPv6 IPAM configs of a dual-stack network: subnet and gateway (the subnet's first address by default). */
  private ipamConfig6(given: IPAMEntry[]): IPAMEntry[] {
    if (given.length > 1) throw invalidParameter('berth supports one IPv6 subnet per network');
    return given.map((g) => {
      let subnet;
      try {
        subnet = parseCidr6(g.Subnet!);
      } catch (err) {
        throw invalidParameter(`Invalid subnet ${g.Subnet} : ${(err as Error).message}`);
      }
      if (this.list().some((n) => n.IPAM.Config.some((c) => c.Subnet && overlapsAny(c.Subnet, g.Subnet!)))) throw forbidden('Pool overlaps with other one on this address space');
      const gw = g.Gateway || defaultGateway6(g.Subnet!);
      if (!contains6(subnet, gw)) throw invalidParameter(`failed to allocate gateway (${gw}): Requested address is out of range`);
      return { Subnet: g.Subnet, Gateway: gw, ...(g.Gateway ? {} : { GatewayChosen: true }) };
    });
  }

  /** Validates the IPAM configs, choosing a free default pool when none is given. */
  private async ipamConfig(given: (IPAMEntry & { AuxAddress?: Record<string, string> })[]): Promise<IPAMEntry[]> {
    const taken = await this.takenSubnets();
    if (given.length === 0) {
      const subnet = pickSubnet(taken, this.o.addressPools);
      return [{ Subnet: subnet, Gateway: defaultGateway(subnet) }];
    }
    const out: IPAMEntry[] = [];
    for (const g of given) {
      if (!g.Subnet) throw invalidParameter('ipam configuration without a subnet is not supported');
      let subnet;
      try {
        subnet = parseCidr(g.Subnet);
      } catch (err) {
        throw systemError(`Invalid subnet ${g.Subnet} : ${(err as Error).message}`);
      }
      const clash = this.list().find((n) => n.IPAM.Config.some((c) => c.Subnet && !isIPv6(c.Subnet) && overlaps(parseCidr(c.Subnet), subnet)));
      if (clash) throw forbidden(`Pool overlaps with other one on this address space`);
      const e: IPAMEntry = { Subnet: g.Subnet };
      if (g.IPRange) {
        const r = parseCidr(g.IPRange);
        if (!overlaps(r, subnet) || r.prefix < subnet.prefix) throw invalidParameter(`Invalid Address Pool: ${g.IPRange} is not a sub-pool of ${g.Subnet}`);
        e.IPRange = g.IPRange;
      }
      // As the reference: without a gateway given, the first address it can hand out (of the IP range when there is
      // one: the range's own first, the subnet's network address left out), not shown in the network's IPAM
      const gw = g.Gateway || (g.IPRange ? rangeBounds(g.IPRange, g.Subnet).rangeStart : defaultGateway(g.Subnet));
      if (!contains(subnet, gw)) throw invalidParameter(`failed to allocate gateway (${gw}): Requested address is out of range`);
      e.Gateway = gw;
      if (!g.Gateway) e.GatewayChosen = true;
      const aux = g.AuxiliaryAddresses ?? g.AuxAddress;
      if (aux && Object.keys(aux).length) {
        for (const [k, a] of Object.entries(aux)) if (!contains(subnet, a)) throw invalidParameter(`failed to allocate secondary ip address (${k}:${a}): Requested address is out of range`);
        e.AuxiliaryAddresses = aux;
      }
      out.push(e);
    }
    return out;
  }

  /** `hasEndpoints` says whether containers have endpoints on it (the container networking knows). */
  async remove(ref: string, hasEndpoints: (networkId: string) => boolean): Promise<void> {
    const n = this.find(ref);
    if (n.Predefined) throw forbidden(`${n.Name} is a pre-defined network and cannot be removed`);
    if (hasEndpoints(n.Id)) throw forbidden(`error while removing network: network ${n.Name} id ${n.Id} has active endpoints`);
    if (n.Scope === 'swarm') {
      await this.swarm!.remove(n.Id);
      this.o.events.publish('network', 'destroy', n.Id, { name: n.Name, type: n.Driver });
      return;
    }
    await this.drivers.get(n.Id)?.destroy();
    this.drivers.delete(n.Id);
    this.nets.delete(n.Id);
    await fs.promises.rm(path.join(this.dir, `${n.Id}.json`), { force: true });
    this.o.events.publish('network', 'destroy', n.Id, { name: n.Name, type: n.Driver });
  }

  publishEndpoint(action: 'connect' | 'disconnect', n: NetworkRecord, containerId: string): void {
    this.o.events.publish('network', action, n.Id, { container: containerId, name: n.Name, type: n.Driver });
  }
}
