// The embedded resolver's listeners and wire (docs/dns.md): a UDP and a TCP socket per user-defined network on its
// gateway address; queries decoded with dns-packet, answered from what `decide` says, or forwarded raw to upstream
// servers over the transport they came on.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import type * as dnsPacket from 'dns-packet';
import type { Logger } from '../log';
import type { DnsDecision } from '../types/dns';

/** dns-packet, loaded at the first query (an idle berth, or one without user networks, does not hold it). */
let codec: typeof dnsPacket | undefined;
const dnsCodec = (): typeof dnsPacket => (codec ??= require('dns-packet') as typeof dnsPacket);

/** The engine's TTL for the names it answers. */
export const DNS_TTL = 600;
const FORWARD_TIMEOUT_MS = 2000;
/** A TCP client may hold its connection this long without a query. */
const TCP_IDLE_MS = 10_000;

/** A question about a name, from a client address on a network. */
export interface DnsQuestionContext {
  networkId: string;
  clientIp: string;
  name: string;
  type: string;
}

export type Decide = (q: DnsQuestionContext) => DnsDecision | undefined;

interface Listener {
  address: string;
  udp: dgram.Socket;
  tcp: net.Server;
  conns: Set<net.Socket>;
}

/** The response codes berth sends (dns-packet encodes the code from the low bits of `flags`). */
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

function reply(query: dnsPacket.Packet, rcode: keyof typeof RCODE, answers: dnsPacket.Answer[]): Buffer {
  return dnsCodec().encode({
    id: query.id,
    type: 'response',
    flags: ((query.flags ?? 0) & dnsCodec().RECURSION_DESIRED) | dnsCodec().RECURSION_AVAILABLE | RCODE[rcode],
    questions: query.questions,
    answers,
  } as dnsPacket.Packet);
}

/** The local answer to a decoded query, or 'forward' with the servers; null when the packet is not a query to answer. */
export function answerLocally(query: dnsPacket.Packet, decide: (name: string, type: string) => DnsDecision | undefined): Buffer | { forward: string[] } | null {
  if (query.type !== 'query' || !query.questions?.length) return null;
  const q = query.questions[0];
  const d = decide(q.name.toLowerCase().replace(/\.$/, ''), q.type);
  if (!d) return reply(query, 'REFUSED', []); // not one of berth's containers
  if (d.kind === 'forward') return d.servers.length ? { forward: d.servers } : reply(query, 'SERVFAIL', []);
  if (d.kind === 'ptr') return reply(query, 'NOERROR', [{ name: q.name, type: 'PTR', class: 'IN', ttl: DNS_TTL, data: d.name }]);
  const list = q.type === 'AAAA' ? d.addresses.v6 : q.type === 'A' ? d.addresses.v4 : [];
  return reply(query, 'NOERROR', list.map((ip) => ({ name: q.name, type: q.type as 'A', class: 'IN', ttl: DNS_TTL, data: ip })));
}

/** Asks the servers in turn until one answers. */
async function firstAnswer(servers: string[], ask: (server: string) => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
  for (const server of servers) {
    const got = await ask(server);
    if (got) return got;
  }
  return undefined;
}

function forwardUdp(packet: Buffer, servers: string[]): Promise<Buffer | undefined> {
  return firstAnswer(
    servers,
    (server) =>
      new Promise((resolve) => {
        const s = dgram.createSocket(server.includes(':') ? 'udp6' : 'udp4');
        const done = (b: Buffer | undefined): void => {
          clearTimeout(timer);
          s.close();
          resolve(b);
        };
        const timer = setTimeout(() => done(undefined), FORWARD_TIMEOUT_MS);
        s.on('error', () => done(undefined));
        s.on('message', (m) => done(m));
        s.send(packet, 53, server);
      }),
  );
}

function forwardTcp(packet: Buffer, servers: string[]): Promise<Buffer | undefined> {
  return firstAnswer(
    servers,
    (server) =>
      new Promise((resolve) => {
        const sock = net.connect(53, server);
        let buf = Buffer.alloc(0);
        const done = (b: Buffer | undefined): void => {
          sock.destroy();
          resolve(b);
        };
        sock.setTimeout(FORWARD_TIMEOUT_MS, () => done(undefined));
        sock.on('error', () => done(undefined));
        sock.on('connect', () => sock.write(dnsCodec().streamEncode(dnsCodec().decode(packet))));
        sock.on('data', (d) => {
          buf = Buffer.concat([buf, d]);
          if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.subarray(2, 2 + buf.readUInt16BE(0)));
        });
        sock.on('end', () => done(undefined));
      }),
  );
}

export class DnsServer {
  private readonly listeners = new Map<string, Listener>();
  private readonly opening = new Map<string, Promise<Listener>>();

  constructor(
    private readonly decide: Decide,
    private readonly logger: Logger,
  ) {}

  /** The listener of a network: its address and ports, opened on `address` if not yet. */
  async ensure(networkId: string, address: string): Promise<{ gateway: string; udp: number; tcp: number }> {
    let l = this.listeners.get(networkId);
    if (l && l.address !== address) {
      await this.close(networkId);
      l = undefined;
    }
    if (!l) {
      let p = this.opening.get(networkId);
      if (!p) {
        p = this.open(networkId, address).finally(() => this.opening.delete(networkId));
        this.opening.set(networkId, p);
      }
      l = await p;
    }
    return { gateway: l.address, udp: (l.udp.address() as net.AddressInfo).port, tcp: (l.tcp.address() as net.AddressInfo).port };
  }

  private async open(networkId: string, address: string): Promise<Listener> {
    const udp = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    const tcp = net.createServer();
    const conns = new Set<net.Socket>();
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, address, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, address, () => {
        tcp.off('error', reject);
        resolve();
      });
    }).catch((err) => {
      udp.close();
      throw err;
    });
    udp.on('error', (err) => this.logger.warn('dns: udp socket error', { network: networkId, error: err.message }));
    udp.on('message', (msg, rinfo) => {
      void this.handle(networkId, rinfo.address, msg, 'udp').then((out) => {
        // the listener may have closed while an upstream answered
        if (out && this.listeners.get(networkId)?.udp === udp) udp.send(out, rinfo.port, rinfo.address, () => undefined);
      });
    });
    tcp.on('connection', (sock) => this.serveTcp(networkId, sock, conns));
    const l: Listener = { address, udp, tcp, conns };
    this.listeners.set(networkId, l);
    this.logger.debug('dns: listening', { network: networkId, address });
    return l;
  }

  private serveTcp(networkId: string, sock: net.Socket, conns: Set<net.Socket>): void {
    conns.add(sock);
    let buf = Buffer.alloc(0);
    sock.setTimeout(TCP_IDLE_MS, () => sock.destroy());
    sock.on('error', () => sock.destroy());
    sock.on('close', () => conns.delete(sock));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        void this.handle(networkId, sock.remoteAddress ?? '', msg, 'tcp').then((out) => {
          if (!out || sock.destroyed) return;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(out.length);
          sock.write(Buffer.concat([len, out]));
        });
      }
      if (buf.length > 2 + 65535) sock.destroy();
    });
  }

  /** One query: decoded, answered or forwarded; undefined when there is nothing to send back. */
  async handle(networkId: string, clientIp: string, msg: Buffer, transport: 'udp' | 'tcp'): Promise<Buffer | undefined> {
    let query: dnsPacket.Packet;
    try {
      query = dnsCodec().decode(msg);
    } catch {
      return undefined; // not DNS: dropped, as a resolver does
    }
    let local: ReturnType<typeof answerLocally>;
    try {
      local = answerLocally(query, (name, type) => this.decide({ networkId, clientIp: clientIp.replace(/^::ffff:/, ''), name, type }));
    } catch (err) {
      this.logger.warn('dns: lookup failed', { error: (err as Error).message });
      local = reply(query, 'SERVFAIL', []);
    }
    if (!local) return undefined;
    if (Buffer.isBuffer(local)) return local;
    const out = await (transport === 'udp' ? forwardUdp(msg, local.forward) : forwardTcp(msg, local.forward));
    return out ?? reply(query, 'SERVFAIL', []);
  }

  async close(networkId?: string): Promise<void> {
    const ids = networkId ? [networkId] : [...this.listeners.keys()];
    await Promise.all(
      ids.map(async (id) => {
        const l = this.listeners.get(id);
        if (!l) return;
        this.listeners.delete(id);
        l.udp.close();
        for (const c of l.conns) c.destroy();
        await new Promise<void>((resolve) => l.tcp.close(() => resolve()));
      }),
    );
  }

  get networks(): number {
    return this.listeners.size;
  }
}
