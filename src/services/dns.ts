// The embedded resolver's domain (docs/dns.md): which container asks (by its address on the network the query came
// in on), what the names on its user-defined networks are (berth's containers, then the registered name sources),
// where other names go (the container's upstream servers), and the 127.0.0.11 redirection in each container's netns.
import * as fs from 'node:fs';
import type { Logger } from '../log';
import { DnsServer, DnsQuestionContext } from '../network/dns';
import { redirectDns } from '../network/sandbox';
import type { ContainerStore } from '../store/containers';
import type { ContainerRecord } from '../types/container';
import type { DnsAddresses, DnsClient, DnsDecision, NameSource } from '../types/dns';
import type { Endpoint, NetworkRecord } from '../types/network';
import type { NetworkService } from './networks';

export interface DnsDeps {
  store: ContainerStore;
  networks: NetworkService;
  logger: Logger;
  /** daemon.json's dns: the upstream servers of a container that sets no Dns. */
  dnsDefaults?: string[];
  /** The host's resolver configuration (a test's own file). */
  hostResolvConf?: string;
}

/** `1.2.3.4.in-addr.arpa` → `4.3.2.1`; undefined for other names. */
export function ptrAddress(name: string): string | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.in-addr\.arpa$/.exec(name);
  return m ? `${m[4]}.${m[3]}.${m[2]}.${m[1]}` : undefined;
}

/** A network that gets the embedded resolver: user-defined and not internal (an internal bridge has no gateway address). */
export function hasResolver(net: NetworkRecord | undefined): boolean {
  return !!net && !net.Predefined && !net.Internal && (net.Driver === 'bridge' || !net.Driver || net.Driver === 'overlay');
}

export class DnsService {
  readonly server: DnsServer;
  private readonly sources: NameSource[] = [];
  /** More nat lines for a container's own table (the swarm's VIP rules, docs/overlay.md). */
  private natRules?: (containerId: string) => string[];

  constructor(private readonly d: DnsDeps) {
    this.server = new DnsServer((q) => this.decide(q), d.logger);
    this.sources.push({ resolve: (name, client) => this.resolveContainer(name, client), reverse: (ip, client) => this.reverseContainer(ip, client) });
  }

  /** Adds a source of names after berth's containers; returns the function that removes it again. */
  addSource(source: NameSource): () => void {
    this.sources.push(source);
    return () => {
      const i = this.sources.indexOf(source);
      if (i > 0) this.sources.splice(i, 1);
    };
  }

  /** Sets the source of the extra nat lines written with each container's DNS redirection. */
  setNatRules(fn: (containerId: string) => string[]): void {
    this.natRules = fn;
  }

  /** Whether the container's resolv.conf names 127.0.0.11: it is configured on a network with a resolver. */
  usesEmbedded(rec: ContainerRecord): boolean {
    return Object.values(rec.Networks ?? {}).some((cfg) => hasResolver(this.d.networks.tryFind(cfg.NetworkID)));
  }

  private live(rec: ContainerRecord): Endpoint[] {
    return Object.values(rec.Endpoints ?? {})
      .filter((ep) => !!ep.networkId && hasResolver(this.d.networks.tryFind(ep.networkId)))
      .sort((a, b) => (a.ifname ?? '').localeCompare(b.ifname ?? ''));
  }

  /** Points the container's 127.0.0.11 (once its endpoints are plugged) at the listener of its first network with a resolver. */
  async attach(rec: ContainerRecord): Promise<void> {
    if (!rec.Endpoints || !this.usesEmbedded(rec)) return;
    // an overlay endpoint has no gateway on this host: the listener is then on the container's other network's
    // gateway (a swarm task's default bridge), and the query names the container by its address there
    const ep = this.live(rec).find((e) => e.gateway) ?? Object.values(rec.Endpoints).find((e) => e.gateway && e.networkId);
    const target = ep ? await this.server.ensure(ep.networkId!, ep.gateway) : undefined;
    await redirectDns(rec.Id, target, this.natRules?.(rec.Id) ?? []);
  }

  /** At start-up: the listeners are new, so every running container's redirection is written again. */
  async restore(): Promise<void> {
    const running = this.d.store.all().filter((r) => r.State.Running && r.Endpoints);
    await Promise.all(running.map((r) => this.attach(r).catch((err) => this.d.logger.warn('dns: cannot redirect 127.0.0.11', { container: r.Id, error: (err as Error).message }))));
  }

  /** The network is gone: its listener closes. */
  forget(networkId: string): Promise<void> {
    return this.server.close(networkId);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private client(networkId: string, ip: string): ContainerRecord | undefined {
    return this.d.store.all().find((r) => Object.values(r.Endpoints ?? {}).some((ep) => ep.networkId === networkId && ep.ip === ip));
  }

  decide(q: DnsQuestionContext): DnsDecision | undefined {
    const rec = this.client(q.networkId, q.clientIp);
    if (!rec) return undefined;
    const eps = this.live(rec);
    const client: DnsClient = { containerId: rec.Id, networkIds: eps.map((e) => e.networkId!) };
    if (q.type === 'PTR') {
      const ip = ptrAddress(q.name);
      for (const s of ip ? this.sources : []) {
        const name = s.reverse?.(ip!, client);
        if (name) return { kind: 'ptr', name };
      }
    } else {
      for (const s of this.sources) {
        const addresses = s.resolve(q.name, client);
        if (addresses) return { kind: 'answer', addresses };
      }
    }
    return { kind: 'forward', servers: eps.length ? this.upstream(rec) : [] };
  }

  /** Where names berth does not know go: the container's Dns, daemon.json's dns, the host's nameservers (its
   * loopback ones too: berth forwards from the host's namespace), else the engine's fallback. */
  upstream(rec: ContainerRecord): string[] {
    const own = rec.HostConfig.Dns ?? [];
    if (own.length) return own;
    if (this.d.dnsDefaults?.length) return this.d.dnsDefaults;
    const host = this.hostNameservers().filter((s) => s !== '127.0.0.11');
    return host.length ? host : ['8.8.8.8', '8.8.4.4'];
  }

  private hostCache: { at: number; servers: string[] } | undefined;

  /** The nameservers of the host's /etc/resolv.conf (read again at most every 5 s). */
  private hostNameservers(): string[] {
    const now = Date.now();
    if (this.hostCache && now - this.hostCache.at < 5000) return this.hostCache.servers;
    let text = '';
    try {
      text = fs.readFileSync(this.d.hostResolvConf ?? '/etc/resolv.conf', 'utf8');
    } catch {
      /* none */
    }
    const servers = text.split('\n').filter((l) => /^\s*nameserver\s/.test(l)).map((l) => l.trim().split(/\s+/)[1]).filter(Boolean);
    this.hostCache = { at: now, servers };
    return servers;
  }

  /** Peers (the client too) with a live endpoint on one of the networks: name, aliases, short id; the client's links. */
  private resolveContainer(name: string, client: DnsClient): DnsAddresses | undefined {
    let nets = client.networkIds;
    let wanted = name;
    const dot = name.lastIndexOf('.');
    if (dot > 0) {
      const scoped = this.d.networks.tryFind(name.slice(dot + 1));
      if (scoped && nets.includes(scoped.Id) && scoped.Name === name.slice(dot + 1)) {
        nets = [scoped.Id];
        wanted = name.slice(0, dot);
      }
    }
    const out: DnsAddresses = { v4: [], v6: [] };
    let found = false;
    const add = (ep: Endpoint): void => {
      found = true;
      if (ep.ip && !out.v4.includes(ep.ip)) out.v4.push(ep.ip);
      if (ep.ip6 && !out.v6.includes(ep.ip6)) out.v6.push(ep.ip6);
    };
    const all = this.d.store.all();
    const self = all.find((r) => r.Id === client.containerId);
    for (const id of nets) {
      const net = this.d.networks.tryFind(id);
      if (!net) continue;
      for (const r of all) {
        const ep = Object.values(r.Endpoints ?? {}).find((e) => e.networkId === id);
        if (!ep) continue;
        const names = [r.Name.slice(1), ...(r.Networks?.[net.Name]?.Aliases ?? []), r.Id.slice(0, 12)];
        if (names.some((n) => typeof n === 'string' && n.toLowerCase() === wanted)) add(ep);
      }
      for (const l of self?.Networks?.[net.Name]?.Links ?? []) {
        const i = l.indexOf(':');
        const target = (i < 0 ? l : l.slice(0, i)).replace(/^\//, '');
        const alias = i < 0 ? target : l.slice(i + 1).replace(/^.*\//, '');
        if (alias.toLowerCase() !== wanted) continue;
        const t = all.find((r) => r.Name === `/${target}` || r.Id === target);
        const ep = t && Object.values(t.Endpoints ?? {}).find((e) => e.networkId === id);
        if (ep) add(ep);
      }
    }
    return found ? out : undefined;
  }

  private reverseContainer(ip: string, client: DnsClient): string | undefined {
    for (const id of client.networkIds) {
      const net = this.d.networks.tryFind(id);
      const r = net && this.d.store.all().find((c) => Object.values(c.Endpoints ?? {}).some((e) => e.networkId === id && e.ip === ip));
      if (r) return `${r.Name.slice(1)}.${net!.Name}`;
    }
    return undefined;
  }
}

