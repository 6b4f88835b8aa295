// berth's default bridge network through CNI: a named netns per container, loopback, the bridge plugin with
// host-local IPAM (leases under the data root, released on teardown), and portmap for published ports.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { invalidParameter, systemError } from '../errors';
import type { Logger } from '../log';
import { addNetworkList, delNetworkList, CniResult, CNI_VERSION, NetConfList } from './cni';
import { createNetns, deleteNetns, netnsPath } from './sandbox';

export interface PortBinding {
  HostIp: string;
  HostPort: string;
}

export interface Endpoint {
  network: string;
  ip: string;
  prefixLen: number;
  gateway: string;
  mac: string;
  /** "80/tcp" → bindings as published */
  ports: Record<string, PortBinding[] | null>;
  mappings: { hostPort: number; containerPort: number; protocol: string; hostIP: string }[];
  result?: CniResult;
}

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

export class BridgeNetwork {
  readonly list: NetConfList;
  private readonly lo: NetConfList = { cniVersion: CNI_VERSION, name: 'berth-loopback', plugins: [{ type: 'loopback' }] };

  constructor(
    readonly bridgeName: string,
    readonly subnet: string,
    dataRoot: string,
    private readonly logger: Logger,
  ) {
    const ipamDir = path.join(dataRoot, 'network', 'ipam');
    fs.mkdirSync(ipamDir, { recursive: true });
    this.list = {
      cniVersion: CNI_VERSION,
      name: `berth-${bridgeName}`,
      plugins: [
        { type: 'bridge', bridge: bridgeName, isGateway: true, ipMasq: true, hairpinMode: true, ipam: { type: 'host-local', ranges: [[{ subnet }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDir } },
        { type: 'portmap', capabilities: { portMappings: true }, snat: true },
        // Accepts the container's traffic in FORWARD even where another engine set the policy to DROP.
        { type: 'firewall', backend: 'iptables' },
      ],
    };
    try {
      fs.writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
    } catch (err) {
      logger.warn('cannot enable IPv4 forwarding', { err: String(err) });
    }
  }

  /** Without published ports the portmap plugin has nothing to do: skip its exec on ADD and DEL. */
  private listFor(withPorts: boolean): NetConfList {
    return withPorts ? this.list : { ...this.list, plugins: this.list.plugins.filter((p) => p.type !== 'portmap') };
  }

  /** Creates the named namespace a bridge container's spec points at (before its task is created). */
  async prepare(containerId: string, mode: string): Promise<void> {
    if (mode === 'default' || mode === 'bridge') await createNetns(containerId);
  }

  async setupBridge(containerId: string, ports: PortRequest): Promise<Endpoint> {
    const ns = await createNetns(containerId);
    const plan = await planPorts(ports);
    const args = { containerId, netns: ns, ifname: 'eth0', runtimeConfig: { portMappings: plan.mappings } };
    let result: CniResult | undefined;
    try {
      [, result] = await Promise.all([addNetworkList(this.lo, { containerId, netns: ns, ifname: 'lo' }), addNetworkList(this.listFor(plan.mappings.length > 0), args)]);
    } catch (err) {
      await delNetworkList(this.listFor(plan.mappings.length > 0), args).catch(() => undefined);
      throw err;
    }
    const ip = result?.ips?.[0];
    if (!ip) throw systemError('CNI bridge returned no address');
    const [addr, prefix] = ip.address.split('/');
    const iface = result?.interfaces?.find((i) => i.sandbox);
    return { network: 'bridge', ip: addr, prefixLen: Number(prefix), gateway: ip.gateway ?? '', mac: iface?.mac ?? '', ports: plan.ports, mappings: plan.mappings, result };
  }

  async teardown(containerId: string, ep: Endpoint | undefined): Promise<void> {
    const ns = netnsPath(containerId);
    if (ep) {
      await delNetworkList(this.listFor(ep.mappings.length > 0), { containerId, netns: fs.existsSync(ns) ? ns : '', ifname: 'eth0', runtimeConfig: { portMappings: ep.mappings } }, ep.result).catch((err) =>
        this.logger.warn('CNI teardown failed', { id: containerId, err: String(err) }),
      );
    }
    await deleteNetns(containerId);
  }
}
