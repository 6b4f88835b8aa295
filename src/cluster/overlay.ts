// The overlay datapath of one node (docs/overlay.md): per overlay network with a container here, a Linux bridge and
// a VXLAN device (the network's VNI, this node's VXLAN port, its advertise address as the local VTEP, no learning,
// ARP answered from static neighbour entries); the peers' MAC/IP/VTEP from etcd as permanent FDB and neighbour
// entries; containers plugged in with a veth pair at the address the leader gave their task. Every node's loop
// (500 ms) also registers the node's VTEP, removes the devices of networks no container here uses, keeps the
// service names and VIP backends for the embedded resolver and the containers' VIP rules.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as path from 'node:path';
import { forbidden } from '../errors';
import type { Logger } from '../log';
import { ensureRules, removeRules } from '../network/bridge';
import type { DnsAddresses, DnsClient, NameSource } from '../types/dns';
import type { Endpoint, NetworkDriver, NetworkRecord } from '../types/network';
import type { NodeRole, ServiceRecord, TaskRecord } from '../types/swarm';
import { LoopWorker } from './orchestrator';
import { macOf, overlayDevices, serviceNetworks } from './overlay-plan';
import { guard, type ClusterState } from './state';

const execFileP = promisify(execFile);
const LOOP_MS = 500;
const MTU = 1450;
const VTEPS = '/berth/swarm/vteps/';

async function ip(args: string[]): Promise<string> {
  const { stdout } = await execFileP('ip', args);
  return stdout;
}

const forwardRules = (bridge: string) => [{ table: 'filter', chain: 'FORWARD', args: ['-i', bridge, '-j', 'ACCEPT'] }];

export interface OverlayDeps {
  current: () => { state: ClusterState; nodeId: string; role: NodeRole } | undefined;
  /** The swarm's networks as this node last read them, and a fresh read. */
  networks: () => NetworkRecord[];
  refresh: () => Promise<void>;
  /** Running containers' endpoints on a network (this node's). */
  endpointsOn: (networkId: string) => { containerId: string; ep: Endpoint }[];
  /** Writes a container's nat table again (its DNS redirection and VIP rules). */
  renat: (containerId: string) => Promise<void>;
  vxlanPort: number;
  logger: Logger;
}

interface Peer {
  ip: string;
  mac: string;
  dst: string;
  port: number;
}

/** A running task's address on a network, for names and VIP backends. */
const running = (t: TaskRecord): boolean => t.Status.State === 'running' && t.DesiredState === 'running';

export class OverlayNode extends LoopWorker implements NameSource {
  /** Networks whose devices this process made or found: the peers it wrote (ip → peer). */
  private readonly devices = new Map<string, Map<string, Peer>>();
  private services: ServiceRecord[] = [];
  private tasks: TaskRecord[] = [];
  /** The VIP rules last written per container. */
  private readonly nat = new Map<string, string>();
  private vtepWritten = '';
  /** When a container was last plugged into each network's bridge: its devices stay a while even before the
   * container's endpoint is recorded. */
  private readonly lastAttach = new Map<string, number>();
  /** One device set-up at a time per network (two containers starting at once). */
  private readonly ensuring = new Map<string, Promise<void>>();
  /** Whether a device of this node's port may exist that no network needs (see sweep()). */
  private sweepDue = true;

  constructor(private readonly d: OverlayDeps) {
    super('overlay', LOOP_MS, d.logger);
  }

  private names(net: NetworkRecord): { bridge: string; vxlan: string } {
    return overlayDevices(net.vni ?? 0, this.d.vxlanPort);
  }

  /** The driver that plugs containers into one overlay network on this node. */
  driver(net: NetworkRecord): NetworkDriver {
    return {
      attach: (containerId, ns, a) => this.attach(net, containerId, ns, a),
      detach: async (containerId) => {
        await ip(['link', 'del', this.hostVeth(containerId, net)]).catch(() => undefined);
      },
      releaseStaleLeases: async () => 0,
      destroy: () => this.removeDevices(net),
    };
  }

  private hostVeth(containerId: string, net: NetworkRecord): string {
    return `vo${containerId.slice(0, 7)}${((net.vni ?? 0) & 0xffff).toString(16).padStart(4, '0')}`;
  }

  private async attach(net: NetworkRecord, containerId: string, ns: string, a: { ifname: string; ip?: string }): Promise<Omit<Endpoint, 'network' | 'networkId' | 'endpointId'>> {
    if (!a.ip) throw forbidden(`Could not attach to network ${net.Name}: rpc error: code = PermissionDenied desc = network ${net.Name} not manually attachable`);
    const { bridge, vxlan } = this.names(net);
    this.lastAttach.set(vxlan, Date.now());
    await this.ensureDevices(net);
    const prefixLen = Number(net.IPAM.Config[0].Subnet!.split('/')[1]);
    const addr = a.ip.split('/')[0];
    const mac = macOf(addr);
    const host = this.hostVeth(containerId, net);
    const tmp = `vc${host.slice(2)}`;
    const nsName = path.basename(ns);
    await ip(['link', 'del', host]).catch(() => undefined);
    await ip(['link', 'add', host, 'mtu', String(MTU), 'type', 'veth', 'peer', 'name', tmp, 'mtu', String(MTU), 'netns', nsName]);
    try {
      await ip(['link', 'set', host, 'master', bridge, 'up']);
      await ip(['-n', nsName, 'link', 'set', tmp, 'name', a.ifname, 'address', mac]);
      await ip(['-n', nsName, 'addr', 'add', `${addr}/${prefixLen}`, 'dev', a.ifname]);
      await ip(['-n', nsName, 'link', 'set', a.ifname, 'up']);
    } catch (err) {
      await ip(['link', 'del', host]).catch(() => undefined);
      throw err;
    }
    this.kick();
    return { ifname: a.ifname, ip: addr, prefixLen, gateway: '', mac, ports: {}, mappings: [] };
  }

  /** The network's bridge and VXLAN device on this node (made once; found again after a restart). */
  private ensureDevices(net: NetworkRecord): Promise<void> {
    const { vxlan } = this.names(net);
    if (this.devices.has(vxlan)) return Promise.resolve();
    let p = this.ensuring.get(vxlan);
    if (!p) {
      p = this.makeDevices(net).finally(() => this.ensuring.delete(vxlan));
      this.ensuring.set(vxlan, p);
    }
    return p;
  }

  private async makeDevices(net: NetworkRecord): Promise<void> {
    const { bridge, vxlan } = this.names(net);
    this.sweepDue = true;
    const local = await this.localAddr();
    if (!local) throw new Error('overlay: this node has no advertise address yet');
    const exists = async (dev: string) => ip(['link', 'show', dev]).then(() => true, () => false);
    if (!(await exists(bridge))) await ip(['link', 'add', bridge, 'mtu', String(MTU), 'type', 'bridge']);
    if (!(await exists(vxlan))) {
      await ip(['link', 'add', vxlan, 'mtu', String(MTU), 'type', 'vxlan', 'id', String(net.vni), 'dstport', String(this.d.vxlanPort), 'local', local, 'nolearning', 'proxy']);
    }
    await ip(['link', 'set', vxlan, 'master', bridge, 'up']);
    await ip(['link', 'set', bridge, 'up']);
    // bridged frames pass the FORWARD chain when br_netfilter is loaded (another engine may have set DROP there)
    await ensureRules(forwardRules(bridge));
    // entries a previous berth wrote are read back, so that the next sync removes the stale ones
    const peers = new Map<string, Peer>();
    for (const line of (await ip(['neigh', 'show', 'dev', vxlan]).catch(() => '')).split('\n')) {
      const m = /^(\S+) lladdr (\S+)/.exec(line.trim());
      if (m) peers.set(m[1], { ip: m[1], mac: m[2], dst: '', port: 0 });
    }
    this.devices.set(vxlan, peers);
  }

  private async removeDevices(net: NetworkRecord): Promise<void> {
    const { bridge, vxlan } = this.names(net);
    this.devices.delete(vxlan);
    await ip(['link', 'del', vxlan]).catch(() => undefined);
    await ip(['link', 'del', bridge]).catch(() => undefined);
    await removeRules(forwardRules(bridge)).catch(() => undefined);
  }

  private addr?: string;

  private async localAddr(): Promise<string | undefined> {
    if (this.addr) return this.addr;
    const c = this.d.current();
    const node = c ? await c.state.node(c.nodeId) : undefined;
    this.addr = node?.value.addr || undefined;
    return this.addr;
  }

  /** Devices of this node's VXLAN port left by networks that are gone (or a swarm that was left). */
  private async strayDevices(keep: Set<string>, orThrow = false): Promise<string[]> {
    const suffix = `-${this.d.vxlanPort.toString(16)}`;
    const out = await ip(['-o', 'link', 'show', 'type', 'vxlan']).catch((err) => {
      if (orThrow) throw err;
      return '';
    });
    return out
      .split('\n')
      .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1])
      .filter((n): n is string => !!n && n.startsWith('ox') && n.endsWith(suffix) && !keep.has(n));
  }

  protected async round(): Promise<void> {
    const c = this.d.current();
    if (!c) {
      this.addr = undefined;
      this.vtepWritten = '';
      this.services = [];
      this.tasks = [];
      await this.sweep();
      return;
    }
    const { state, nodeId } = c;
    const local = await this.localAddr();
    if (local) {
      const vtep = JSON.stringify({ addr: local, port: this.d.vxlanPort });
      if (vtep !== this.vtepWritten) {
        await guard(state.client.put(VTEPS + nodeId).value(vtep).exec());
        this.vtepWritten = vtep;
      }
    }
    await this.d.refresh();
    const nets = this.d.networks();
    if (!nets.length) {
      // no overlay network in the swarm: nothing to name, route or rewrite, and no reason to read every service and
      // task from etcd twice a second on every node (a swarm's etcd is what stalls first on a loaded machine)
      this.services = [];
      this.tasks = [];
      await this.sweep();
      return;
    }
    this.sweepDue = true;
    const [services, tasks, vtepKvs] = await Promise.all([state.services(), state.tasks(), guard(state.client.getAll().prefix(VTEPS).exec())]);
    this.services = services.map((s) => s.value);
    this.tasks = tasks.map((t) => t.value);
    const vteps = new Map<string, { addr: string; port: number }>();
    for (const kv of vtepKvs.kvs) vteps.set(kv.key.toString('utf8').slice(VTEPS.length), JSON.parse(kv.value.toString('utf8')));
    const used = new Set<string>();
    for (const net of nets) {
      const eps = this.d.endpointsOn(net.Id);
      const { vxlan } = this.names(net);
      if (!eps.length) continue;
      used.add(vxlan);
      await this.ensureDevices(net);
      await this.syncPeers(net, nodeId, vteps);
    }
    const settling = (vx: string) => this.ensuring.has(vx) || Date.now() - (this.lastAttach.get(vx) ?? 0) < 10_000;
    for (const vx of await this.strayDevices(used)) if (!settling(vx)) await this.removeByName(vx);
    await this.syncNat(nets);
  }

  /**
   * No overlay network here (no swarm, or none in it): every device of this node's port goes. Listed once after
   * devices may have been made (start-up, a round with overlay networks, a device set-up), not at every round: the
   * list is an `ip` exec, and twice a second outside any swarm it forked berthd's whole process in the middle of
   * every container's create, start and exit.
   */
  private async sweep(): Promise<void> {
    if (!this.sweepDue) return;
    this.sweepDue = false;
    try {
      for (const vx of await this.strayDevices(new Set(), true)) await this.removeByName(vx);
    } catch {
      this.sweepDue = true; // (the list failed: asked again next round)
    }
  }

  private async removeByName(vxlan: string): Promise<void> {
    const bridge = `ob${vxlan.slice(2)}`;
    this.devices.delete(vxlan);
    await ip(['link', 'del', vxlan]).catch(() => undefined);
    await ip(['link', 'del', bridge]).catch(() => undefined);
    await removeRules(forwardRules(bridge)).catch(() => undefined);
  }

  /** The peers' entries: every task on the network on another node (not terminal), at its node's VTEP. */
  private async syncPeers(net: NetworkRecord, self: string, vteps: Map<string, { addr: string; port: number }>): Promise<void> {
    const { vxlan } = this.names(net);
    const have = this.devices.get(vxlan);
    if (!have) return;
    const want = new Map<string, Peer>();
    for (const t of this.tasks) {
      if (!t.NodeID || t.NodeID === self || ['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove'].includes(t.Status.State)) continue;
      const v = vteps.get(t.NodeID);
      const a = t.networks?.find((x) => x.networkId === net.Id);
      if (!v || !a) continue;
      const addr = a.addr.split('/')[0];
      want.set(addr, { ip: addr, mac: macOf(addr), dst: v.addr, port: v.port });
    }
    for (const [addr, p] of want) {
      const h = have.get(addr);
      if (h && h.mac === p.mac && h.dst === p.dst && h.port === p.port) continue;
      if (h && h.mac !== p.mac) await execFileP('bridge', ['fdb', 'del', h.mac, 'dev', vxlan, 'self']).catch(() => undefined);
      await execFileP('bridge', ['fdb', 'replace', p.mac, 'dev', vxlan, 'dst', p.dst, 'port', String(p.port), 'self', 'permanent']);
      await ip(['neigh', 'replace', p.ip, 'lladdr', p.mac, 'dev', vxlan, 'nud', 'permanent']);
      have.set(addr, p);
    }
    for (const [addr, h] of have) {
      if (want.has(addr)) continue;
      await ip(['neigh', 'del', addr, 'dev', vxlan]).catch(() => undefined);
      await execFileP('bridge', ['fdb', 'del', h.mac, 'dev', vxlan, 'self']).catch(() => undefined);
      have.delete(addr);
    }
  }

  /** Each local container's VIP rules, written again when its services' backends change. */
  private async syncNat(nets: NetworkRecord[]): Promise<void> {
    const seen = new Set<string>();
    const ids = new Set<string>();
    for (const net of nets) for (const { containerId } of this.d.endpointsOn(net.Id)) ids.add(containerId);
    for (const id of ids) {
      seen.add(id);
      const lines = this.vipRules(id).join('\n');
      if (this.nat.get(id) === lines) continue;
      await this.d.renat(id).catch((err) => this.d.logger.warn('overlay: cannot write VIP rules', { container: id, err: String(err) }));
      this.nat.set(id, lines);
    }
    for (const id of [...this.nat.keys()]) if (!seen.has(id)) this.nat.delete(id);
  }

  /** The overlay networks a local container is on. */
  private containerNets(containerId: string): string[] {
    const out: string[] = [];
    for (const net of this.d.networks()) if (this.d.endpointsOn(net.Id).some((e) => e.containerId === containerId)) out.push(net.Id);
    return out;
  }

  /** The running tasks' addresses of a service on the given networks. */
  private taskIPs(s: ServiceRecord, nets: string[]): string[] {
    const out: string[] = [];
    for (const t of this.tasks) {
      if (t.ServiceID !== s.id || !running(t)) continue;
      for (const a of t.networks ?? []) if (nets.includes(a.networkId)) out.push(a.addr.split('/')[0]);
    }
    return [...new Set(out)].sort();
  }

  /**
   * nat lines for a container's own table: each VIP of a service on one of its networks is DNATed to a running task,
   * chosen at random with equal weight (the statistic match; rule i of n takes 1/(n-i) of what reaches it).
   */
  vipRules(containerId: string): string[] {
    const nets = this.containerNets(containerId);
    const lines: string[] = [];
    for (const s of this.services) {
      for (const v of s.virtualIPs ?? []) {
        if (!nets.includes(v.NetworkID)) continue;
        const backends = this.taskIPs(s, [v.NetworkID]);
        const vip = v.Addr.split('/')[0];
        backends.forEach((b, i) => {
          const left = backends.length - i;
          const pick = left > 1 ? ['-m', 'statistic', '--mode', 'random', '--probability', (1 / left).toFixed(8)] : [];
          lines.push(['-A', 'OUTPUT', '-d', `${vip}/32`, ...pick, '-j', 'DNAT', '--to-destination', b].join(' '));
        });
      }
    }
    return lines;
  }

  /**
   * Names for the embedded resolver (docs/dns.md's NameSource): a service's name or network alias → its VIP (`vip`
   * mode) or its running tasks' addresses (`dnsrr`), `tasks.<service>` → the tasks' addresses, on the networks the
   * asking container shares with the service.
   */
  resolve(name: string, client: DnsClient): DnsAddresses | undefined {
    const nets = client.networkIds;
    const tasksOf = name.startsWith('tasks.') ? name.slice(6) : undefined;
    for (const s of this.services) {
      const on = serviceNetworks(s.spec).filter((n) => nets.includes(n.Target));
      if (!on.length) continue;
      const shared = on.map((n) => n.Target);
      if (tasksOf !== undefined) {
        if (s.spec.Name.toLowerCase() === tasksOf) return { v4: this.taskIPs(s, shared), v6: [] };
        continue;
      }
      const named = s.spec.Name.toLowerCase() === name || on.some((n) => (n.Aliases ?? []).some((a) => a.toLowerCase() === name));
      if (!named) continue;
      if ((s.spec.EndpointSpec?.Mode ?? 'vip') === 'dnsrr') return { v4: this.taskIPs(s, shared), v6: [] };
      return { v4: (s.virtualIPs ?? []).filter((v) => shared.includes(v.NetworkID)).map((v) => v.Addr.split('/')[0]), v6: [] };
    }
    return undefined;
  }
}
