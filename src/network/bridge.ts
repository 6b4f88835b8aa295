// Bridge-driver networks through CNI: loopback, the bridge plugin with host-local IPAM (leases under the data
// root, released on teardown), portmap for published ports and firewall, into a container's named netns.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { forbidden, invalidParameter, StartRefusal, systemError } from '../errors';
import type { Logger } from '../log';
import { addNetworkList, delNetworkList, CNI_VERSION, NetConfList } from './cni';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { defaultGateway, defaultGateway6, macAddress6, macFromIPv4, nextAddress, rangeBounds } from './ipam';
import type { CniResult, Endpoint, PortBinding } from '../types/network';

const execFileP = promisify(execFile);

export interface PortRequest {
  exposed: string[]; // "80/tcp"
  bindings: Record<string, { HostIp?: string; HostPort?: string }[] | null>;
  publishAll: boolean;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host || '0.0.0.0', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Port specs as the engine reads them: "80", "80/udp", host ports "8080", "8000-8010", "" (ephemeral). */
export async function planPorts(req: PortRequest): Promise<{ ports: Record<string, PortBinding[] | null>; mappings: Endpoint['mappings'] }> {
  const ports: Record<string, PortBinding[] | null> = {};
  const mappings: Endpoint['mappings'] = [];
  const keys = new Set([...req.exposed, ...Object.keys(req.bindings ?? {})].map((k) => (k.includes('/') ? k : `${k}/tcp`)));
  for (const key of keys) {
    const [portStr, proto = 'tcp'] = key.split('/');
    const containerPort = Number(portStr);
    if (!Number.isInteger(containerPort) || containerPort < 1 || containerPort > 65535) throw invalidParameter(`Invalid port specification: "${key}"`);
    let list = req.bindings?.[key] ?? req.bindings?.[portStr] ?? null;
    if (!list || list.length === 0) {
      if (!req.publishAll) {
        ports[key] = null;
        continue;
      }
      list = [{ HostIp: '', HostPort: '' }];
    }
    const out: PortBinding[] = [];
    for (const b of list) {
      const hostIP = b.HostIp ?? '';
      let hostPort: number;
      const hp = b.HostPort ?? '';
      if (hp === '' || hp === '0') hostPort = await freePort(hostIP);
      else if (/^\d+-\d+$/.test(hp)) hostPort = Number(hp.split('-')[0]);
      else if (/^\d+$/.test(hp)) hostPort = Number(hp);
      else throw invalidParameter(`Invalid hostPort: ${hp}`);
      if (hostPort < 1 || hostPort > 65535) throw invalidParameter(`Invalid hostPort: ${hp}`);
      mappings.push({ hostPort, containerPort, protocol: proto, hostIP });
      out.push({ HostIp: hostIP || '0.0.0.0', HostPort: String(hostPort) });
    }
    ports[key] = out;
  }
  return { ports, mappings };
}

export interface BridgeOptions {
  /** The CNI network name (host-local keeps its leases under dataDir/<name>). */
  cniName: string;
  /** The network as the engine names it in messages: `NAME (ID)`. */
  title?: string;
  bridgeName: string;
  subnet: string;
  gateway?: string;
  ipRange?: string;
  /** The IPv6 subnet and gateway of a dual-stack network (EnableIPv6). */
  subnet6?: string;
  gateway6?: string;
  /** IPv6 addresses are the subnet's prefix and the interface's MAC (made here when not given), not allocated. */
  v6FromMac?: boolean;
  /** Addresses the allocator must never hand out (IPAM AuxiliaryAddresses). */
  reserved?: string[];
  internal?: boolean;
  dataRoot: string;
  /** daemon.json iptables: false installs no host rules (no NAT, no forwarding rules, no published ports). */
  iptables?: boolean;
  /** daemon.json ip-forward: false leaves net.ipv4.ip_forward alone. */
  ipForward?: boolean;
  /** The default bridge, whose subnet follows the daemon's configuration (bip): an address of an earlier one is
   * removed from the bridge (the CNI plugin refuses a bridge holding another address). */
  followsConfig?: boolean;
}

export interface AttachOptions {
  ifname: string;
  ports?: PortRequest;
  /** A fixed address (EndpointConfig IPAMConfig.IPv4Address). */
  ip?: string;
  /** A fixed IPv6 address (IPAMConfig.IPv6Address) on a dual-stack network. */
  ip6?: string;
  /** A fixed MAC address for the interface (Config.MacAddress, on the container's primary network). */
  mac?: string;
}

type Rule = { table: string; chain: string; args: string[] };

/**
 * One bridge's iptables rules, installed once per network (the engine's equivalent): masquerade what leaves the
 * subnet, and accept forwarded traffic from the bridge, replies to it and published (DNAT) ports to it even where
 * another engine set FORWARD's policy to DROP.
 */
export function bridgeRules(bridge: string, subnet: string, internal: boolean): Rule[] {
  const rules: Rule[] = [
    { table: 'filter', chain: 'FORWARD', args: ['-i', bridge, '-j', 'ACCEPT'] },
    { table: 'filter', chain: 'FORWARD', args: ['-o', bridge, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'ACCEPT'] },
  ];
  if (!internal) rules.push({ table: 'nat', chain: 'POSTROUTING', args: ['-s', subnet, '!', '-o', bridge, '-j', 'MASQUERADE'] });
  return rules;
}

async function iptables(args: string[]): Promise<boolean> {
  try {
    await execFileP('iptables', ['-w', ...args]);
    return true;
  } catch {
    return false;
  }
}

export async function ensureRules(rules: Rule[]): Promise<void> {
  for (const r of rules) {
    if (await iptables(['-t', r.table, '-C', r.chain, ...r.args])) continue;
    const ok = await iptables(['-t', r.table, r.chain === 'FORWARD' ? '-I' : '-A', r.chain, ...r.args]);
    if (!ok) throw new Error(`iptables -t ${r.table} -A ${r.chain} ${r.args.join(' ')} failed`);
  }
}

export async function removeRules(rules: Rule[]): Promise<void> {
  for (const r of rules) while (await iptables(['-t', r.table, '-D', r.chain, ...r.args]));
}

const LOOPBACK: NetConfList = { cniVersion: CNI_VERSION, name: 'berth-loopback', plugins: [{ type: 'loopback' }] };

/** Brings up lo in a container's namespace. */
export async function setupLoopback(containerId: string, ns: string): Promise<void> {
  await addNetworkList(LOOPBACK, { containerId, netns: ns, ifname: 'lo' });
}

/** One bridge-driver network through CNI: the bridge plugin with host-local IPAM, portmap, firewall. */
export class BridgeNetwork {
  readonly list: NetConfList;
  private readonly ipamDir: string;
  private readonly ready: Promise<void>;

  constructor(
    readonly opts: BridgeOptions,
    private readonly logger: Logger,
  ) {
    this.ipamDir = path.join(opts.dataRoot, 'network', 'ipam');
    fs.mkdirSync(this.ipamDir, { recursive: true });
    // host-local's range is the whole subnet: a fixed address may be anywhere in it, as the engine allows; the
    // addresses handed out come from the IP range all the same (berth picks them: nextFree)
    const range: Record<string, string> = { subnet: opts.subnet };
    if (opts.gateway) range.gateway = opts.gateway;
    this.list = {
      cniVersion: CNI_VERSION,
      name: opts.cniName,
      plugins: [
        {
          type: 'bridge',
          bridge: opts.bridgeName,
          // the plugin turns net.ipv4.ip_forward on for a gateway bridge: with ip-forward off, berth gives the bridge its
          // gateway address itself (gatewayByBerth) and the plugin routes containers through it all the same
          isGateway: !opts.internal && opts.ipForward !== false,
          // Masquerading and forwarding are one static rule set per bridge (bridgeRules), not per container.
          ipMasq: false,
          hairpinMode: true,
          capabilities: { ips: true, mac: true },
          ipam: {
            type: 'host-local',
            ranges: opts.subnet6 ? [[range], [{ subnet: opts.subnet6, ...(opts.gateway6 ? { gateway: opts.gateway6 } : {}) }]] : [[range]],
            ...(opts.internal ? {} : { routes: [{ dst: '0.0.0.0/0' }, ...(opts.subnet6 ? [{ dst: '::/0' }] : [])] }),
            dataDir: this.ipamDir,
          },
        },
        { type: 'portmap', capabilities: { portMappings: true }, snat: true },
      ],
    };
    const rules =
      opts.iptables === false
        ? Promise.resolve()
        : ensureRules(bridgeRules(opts.bridgeName, opts.subnet, !!opts.internal)).catch((err) => {
            logger.warn('cannot install the bridge\'s iptables rules', { bridge: opts.bridgeName, err: String(err) });
          });
    const settled = opts.followsConfig ? this.dropOtherAddresses() : Promise.resolve();
    const gateway = settled.then(() => (!opts.internal && opts.ipForward === false ? this.gatewayByBerth() : undefined)).then(() => this.fixMac());
    this.ready = Promise.all([rules, gateway]).then(() => undefined);
    this.reserve(opts.reserved ?? []);
    if (opts.ipForward !== false) {
      try {
        fs.writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
      } catch (err) {
        logger.warn('cannot enable IPv4 forwarding', { err: String(err) });
      }
    }
  }

  /** Removes the bridge's IPv4 addresses other than its gateway's (left by a daemon configured with another bip). */
  private async dropOtherAddresses(): Promise<void> {
    const o = this.opts;
    const want = `${o.gateway ?? defaultGateway(o.subnet)}/${o.subnet.split('/')[1]}`;
    const out = await execFileP('ip', ['-4', '-o', 'addr', 'show', 'dev', o.bridgeName]).then((r) => r.stdout, () => '');
    const old = [...out.matchAll(/\binet (\S+)/g)].map((m) => m[1]).filter((a) => a !== want);
    if (old.length === 0) return;
    try {
      for (const a of old) await execFileP('ip', ['addr', 'del', a, 'dev', o.bridgeName]);
      // the new address given here too: the plugin, adding it, would also set the bridge's MAC, which the kernel
      // refuses while a bridge without ports has none
      await execFileP('ip', ['addr', 'replace', want, 'dev', o.bridgeName]);
    } catch (err) {
      this.logger.warn('cannot replace the old address of the bridge', { bridge: o.bridgeName, old, err: String(err) });
    }
  }

  /**
   * The bridge made (when missing) with a MAC address of its own, 02:42 and four random bytes, as the engine gives its
   * bridges one. A bridge whose MAC the kernel chooses takes its lowest port's and goes back to 00:00:00:00:00:00 when
   * its last port leaves; the CNI plugin sets the bridge's MAC to what it reads before adding the port, which the
   * kernel refuses when that is zero: once a network's first container had failed to start (its port added, then
   * removed), every later start on it failed with 'could not set bridge's mac: invalid argument'.
   */
  private async fixMac(): Promise<void> {
    const name = this.opts.bridgeName;
    const sys = `/sys/class/net/${name}`;
    try {
      if (!fs.existsSync(sys)) await execFileP('ip', ['link', 'add', name, 'type', 'bridge']);
      // (addr_assign_type 3: set by hand, kept whatever the ports)
      if (fs.readFileSync(`${sys}/addr_assign_type`, 'utf8').trim() === '3') return;
      const mac = ['02', '42', ...crypto.randomBytes(4).toString('hex').match(/../g)!].join(':');
      await execFileP('ip', ['link', 'set', name, 'address', mac]);
    } catch (err) {
      this.logger.warn('cannot give the bridge a MAC address of its own', { bridge: name, err: String(err) });
    }
  }

  /** The bridge made with its gateway address(es) and up, as the CNI plugin would with isGateway. */
  private async gatewayByBerth(): Promise<void> {
    const o = this.opts;
    const ip = (args: string[]) => execFileP('ip', args);
    try {
      await ip(['link', 'show', o.bridgeName]).catch(() => ip(['link', 'add', o.bridgeName, 'type', 'bridge']));
      await ip(['addr', 'replace', `${o.gateway ?? defaultGateway(o.subnet)}/${o.subnet.split('/')[1]}`, 'dev', o.bridgeName]);
      if (o.subnet6) await ip(['-6', 'addr', 'replace', `${o.gateway6 ?? defaultGateway6(o.subnet6)}/${o.subnet6.split('/')[1]}`, 'dev', o.bridgeName]);
      await ip(['link', 'set', o.bridgeName, 'up']);
    } catch (err) {
      this.logger.warn('cannot set up the bridge', { bridge: o.bridgeName, err: String(err) });
    }
  }

  /** host-local keeps one file per leased address: a file for each reserved address keeps it from being handed out. */
  private reserve(addrs: string[]): void {
    if (addrs.length === 0) return;
    const dir = path.join(this.ipamDir, this.opts.cniName);
    fs.mkdirSync(dir, { recursive: true });
    for (const a of addrs) fs.writeFileSync(path.join(dir, a), 'reserved\n');
  }

  /** Without published ports the portmap plugin has nothing to do: skip its exec on ADD and DEL (and always with
   * iptables off: portmap is iptables rules). */
  private listFor(withPorts: boolean): NetConfList {
    return withPorts && this.opts.iptables !== false ? this.list : { ...this.list, plugins: this.list.plugins.filter((p) => p.type !== 'portmap') };
  }

  /** Addresses picked by attach (nextFree) whose ADD runs: not picked twice. */
  private readonly picking = new Set<string>();

  /**
   * The IPv4 address host-local would hand out next (its leases are files named by the address in its folder, the
   * last one handed out in last_reserved_ip.0), asked for by the ADD: the MAC, made from it before the ADD as the
   * engine makes it, must be given with it. undefined when nothing is left (the ADD then answers as host-local does).
   */
  private nextFree(skip: ReadonlySet<string> = new Set()): string | undefined {
    const dir = path.join(this.ipamDir, this.opts.cniName);
    let last: string | undefined;
    try {
      last = fs.readFileSync(path.join(dir, 'last_reserved_ip.0'), 'utf8').trim();
    } catch {
      last = undefined;
    }
    const range = this.opts.ipRange ? rangeBounds(this.opts.ipRange, this.opts.subnet) : {};
    return nextAddress({ subnet: this.opts.subnet, ...range, gateway: this.opts.gateway, last, taken: (ip) => this.picking.has(ip) || skip.has(ip) || fs.existsSync(path.join(dir, ip)) });
  }

  /** Plugs an interface for this network into the container's (existing) namespace. */
  async attach(containerId: string, ns: string, a: AttachOptions): Promise<Omit<Endpoint, 'network' | 'networkId' | 'endpointId'>> {
    await this.ready;
    const plan = a.ports ? await planPorts(a.ports) : { ports: {}, mappings: [] };
    const list = this.listFor(plan.mappings.length > 0);
    // As the engine: the MAC is 02:42 and the IPv4 address's four bytes, unless one was given. (An address is picked
    // for a given MAC too: host-local's own pick could take one picked for another ADD running at the same time.)
    let picked = a.ip ? undefined : this.nextFree();
    // (host-local's range is the whole subnet: an IP range with nothing left is told here, in the engine's words)
    const rangeExhausted = () => new StartRefusal(systemError(`no available IPv4 addresses on this network's address pools: ${this.opts.title ?? this.opts.cniName}`));
    if (!a.ip && !picked && this.opts.ipRange) throw rangeExhausted();
    const takenElsewhere = new Set<string>();
    let result: CniResult | undefined;
    for (let attempt = 0; ; attempt++) {
      if (picked) this.picking.add(picked);
      try {
        result = await this.add(containerId, ns, a, list, plan.mappings, picked);
        break;
      } catch (err) {
        // a fixed address host-local cannot give: another endpoint has it (the engine's 403)
        if (a.ip && /failed to allocate|not available|already (allocated|reserved)/.test(String((err as Error).message))) throw new StartRefusal(forbidden('Address already in use'));
        // (an address picked ahead but taken after all, by something else than berth: the next one in the range)
        if (!picked || attempt >= 3) throw err;
        this.logger.debug('the address picked ahead could not be had', { network: this.opts.cniName, ip: picked, err: String(err) });
      } finally {
        if (picked) this.picking.delete(picked);
      }
      takenElsewhere.add(picked);
      picked = this.nextFree(takenElsewhere);
      if (!picked && this.opts.ipRange) throw rangeExhausted();
    }
    const ip = result?.ips?.find((x) => !x.address.includes(':'));
    if (!ip) throw systemError('CNI bridge returned no address');
    const v6 = result?.ips?.find((x) => x.address.includes(':'));
    const [addr, prefix] = ip.address.split('/');
    const iface = result?.interfaces?.find((i) => i.sandbox);
    const [addr6, prefix6] = v6 ? v6.address.split('/') : ['', '0'];
    return {
      ifname: a.ifname, ip: addr, prefixLen: Number(prefix), gateway: this.opts.internal ? '' : ip.gateway ?? '',
      ip6: addr6, prefixLen6: Number(prefix6), gateway6: v6 && !this.opts.internal ? v6.gateway ?? '' : '',
      mac: iface?.mac ?? '', ports: plan.ports, mappings: plan.mappings, result,
    };
  }

  /** One CNI ADD (a DEL after a failed one). */
  private async add(containerId: string, ns: string, a: AttachOptions, list: NetConfList, mappings: unknown[], picked: string | undefined): Promise<CniResult | undefined> {
    const runtimeConfig: Record<string, unknown> = { portMappings: mappings };
    const ip = a.ip || picked;
    let mac = a.mac || (ip ? macFromIPv4(ip) : undefined);
    let ip6 = a.ip6;
    if (this.opts.v6FromMac && this.opts.subnet6 && !ip6) {
      // a locally administered MAC with the engine's 02:42 prefix (taken from the IPv4 address when it is known)
      mac ??= `02:42:${[...crypto.randomBytes(4)].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
      ip6 = macAddress6(this.opts.subnet6, mac);
    }
    const ips = [...(ip ? [`${ip}/${this.opts.subnet.split('/')[1]}`] : []), ...(ip6 && this.opts.subnet6 ? [`${ip6}/${this.opts.subnet6.split('/')[1]}`] : [])];
    if (ips.length) runtimeConfig.ips = ips;
    if (mac) runtimeConfig.mac = mac;
    const args = { containerId, netns: ns, ifname: a.ifname, runtimeConfig };
    try {
      return await addNetworkList(list, args);
    } catch (err) {
      await delNetworkList(list, args).catch(() => undefined);
      throw err;
    }
  }

  async detach(containerId: string, ns: string, ep: Endpoint): Promise<void> {
    const ifname = ep.ifname ?? 'eth0';
    await delNetworkList(this.listFor(ep.mappings.length > 0), { containerId, netns: fs.existsSync(ns) ? ns : '', ifname, runtimeConfig: { portMappings: ep.mappings } }, ep.result).catch((err) =>
      this.logger.warn('CNI teardown failed', { id: containerId, err: String(err) }),
    );
  }

  /** Releases leases host-local holds for containers that are not running (a teardown cut short by a crash). */
  async releaseStaleLeases(running: Set<string>): Promise<number> {
    const dir = path.join(this.ipamDir, this.opts.cniName);
    let n = 0;
    for (const f of await fs.promises.readdir(dir).catch(() => [] as string[])) {
      if (!/^\d+\.\d+\.\d+\.\d+$/.test(f) && !/^[0-9a-f:]+$/.test(f)) continue;
      const owner = (await fs.promises.readFile(path.join(dir, f), 'utf8').catch(() => '')).split(/\r?\n/)[0].trim();
      if (!owner || owner === 'reserved' || running.has(owner)) continue;
      await fs.promises.rm(path.join(dir, f), { force: true });
      n++;
    }
    return n;
  }

  /** Removes the Linux bridge and the lease directory (the network was deleted). */
  async destroy(): Promise<void> {
    await execFileP('ip', ['link', 'delete', this.opts.bridgeName]).catch(() => undefined);
    if (this.opts.iptables !== false) await removeRules(bridgeRules(this.opts.bridgeName, this.opts.subnet, !!this.opts.internal));
    await fs.promises.rm(path.join(this.ipamDir, this.opts.cniName), { recursive: true, force: true });
  }
}
