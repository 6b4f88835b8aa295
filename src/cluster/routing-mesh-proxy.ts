// The routing mesh's sockets (docs/routing-mesh.md): the published ports' TCP servers and UDP sockets on this
// node's advertise IP, and the node's mesh port through which other nodes reach its tasks. It forwards a TCP
// connection or a UDP client's datagrams to a backend round-robin, trying the next backend when one refuses. It
// knows nothing of etcd: RoutingMesh gives it the plan and tells it where local tasks are.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import type { Logger } from '../log';
import { helloLine, meshKey, parseHello, type MeshBackend, type MeshPlan, type MeshPort, type MeshProto } from './routing-mesh-plan';

const CONNECT_TIMEOUT_MS = 3000;
const HELLO_MAX = 128;
/** A UDP session without traffic for this long is closed (conntrack's UDP timeout). */
export const UDP_IDLE_MS = 30_000;

export interface MeshProxyDeps {
  /** This node's id (backends on it are local). */
  nodeId: string;
  /** The container IP of a local task whose container runs, else undefined. */
  localTarget(taskId: string): string | undefined;
  /** Whether the current plan lets a peer reach this local task on this target port. */
  allows(proto: MeshProto, taskId: string, targetPort: number): boolean;
  logger: Logger;
}

interface UdpSession {
  sock: dgram.Socket;
  timer: NodeJS.Timeout;
  /** Prefix for each datagram (the hello line, for a remote backend). */
  prefix?: Buffer;
  to: { address: string; port: number };
}

interface Listener {
  entry: MeshPort;
  rr: number;
  tcp?: net.Server;
  udp?: dgram.Socket;
  sessions: Map<string, UdpSession>;
}

function splitAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

/** A TCP connection to host:port, settled once connected (or failed, or timed out). */
function connectTCP(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port, allowHalfOpen: true, noDelay: true });
    const timer = setTimeout(() => s.destroy(new Error(`connect ${host}:${port}: timed out`)), CONNECT_TIMEOUT_MS);
    s.once('connect', () => {
      clearTimeout(timer);
      s.removeListener('error', reject);
      resolve(s);
    });
    s.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Reads one line (up to HELLO_MAX bytes) from a socket; the bytes after it are put back. */
function readLine(s: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error('no line in time')), CONNECT_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl >= 0) {
        const rest = buf.subarray(nl + 1);
        done(undefined, buf.subarray(0, nl).toString('latin1'));
        if (rest.length) s.unshift(rest);
      } else if (buf.length > HELLO_MAX) done(new Error('line too long'));
    };
    const onEnd = (): void => done(new Error('closed before a line'));
    const done = (err?: Error, line?: string): void => {
      clearTimeout(timer);
      s.removeListener('data', onData);
      s.removeListener('end', onEnd);
      s.removeListener('error', onEnd);
      s.pause();
      if (err) reject(err);
      else resolve(line!);
    };
    s.on('data', onData);
    s.once('end', onEnd);
    s.once('error', onEnd);
  });
}

export class MeshProxy {
  private readonly listeners = new Map<string, Listener>();
  /** Ports that could not be bound (a warning once each; tried again each apply). */
  private readonly warned = new Set<string>();
  private readonly sockets = new Set<net.Socket>();
  private meshTCP?: net.Server;
  private meshUDP?: dgram.Socket;
  private readonly meshSessions = new Map<string, UdpSession>();
  private closed = false;

  constructor(
    /** The advertise IP every socket binds to. */
    readonly ip: string,
    private readonly d: MeshProxyDeps,
  ) {}

  /** Ports open now (`proto/port`), for tests and logs. */
  openPorts(): string[] {
    return [...this.listeners.entries()].filter(([, l]) => l.tcp || l.udp).map(([k]) => k);
  }

  // ---- the mesh port (other nodes reach this node's tasks through it) --------------------------------------------

  async openMeshPort(port: number): Promise<void> {
    if (!this.meshTCP) {
      const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => {
        this.track(s);
        this.acceptPeer(s);
      });
      await listenTCP(server, this.ip, port);
      this.meshTCP = server;
    }
    if (!this.meshUDP) {
      const sock = dgram.createSocket('udp4');
      await bindUDP(sock, this.ip, port);
      sock.on('message', (msg, rinfo) => this.peerDatagram(sock, msg, rinfo));
      this.meshUDP = sock;
    }
  }

  meshPortOpen(): boolean {
    return !!this.meshTCP && !!this.meshUDP;
  }

  private acceptPeer(s: net.Socket): void {
    s.on('error', () => s.destroy());
    readLine(s)
      .then(async (line) => {
        const h = parseHello(line);
        if (!h || !this.d.allows('tcp', h.taskId, h.targetPort)) throw new Error('refused');
        const ip = this.d.localTarget(h.taskId);
        if (!ip) throw new Error('task not running here');
        const up = this.track(await connectTCP(ip, h.targetPort));
        s.write('OK\n');
        join(s, up);
      })
      .catch(() => {
        if (!s.destroyed) s.end('ERR\n');
      });
  }

  private peerDatagram(sock: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const nl = msg.subarray(0, HELLO_MAX).indexOf(0x0a);
    if (nl < 0) return;
    const h = parseHello(msg.subarray(0, nl).toString('latin1'));
    if (!h || !this.d.allows('udp', h.taskId, h.targetPort)) return;
    const key = `${rinfo.address}:${rinfo.port}/${h.taskId}/${h.targetPort}`;
    let s = this.meshSessions.get(key);
    if (!s) {
      const ip = this.d.localTarget(h.taskId);
      if (!ip) return;
      s = this.session(this.meshSessions, key, { address: ip, port: h.targetPort }, undefined, (reply) => sock.send(reply, rinfo.port, rinfo.address));
    }
    this.sendSession(this.meshSessions, key, s, msg.subarray(nl + 1));
  }

  // ---- published ports -------------------------------------------------------------------------------------------

  /** Opens the plan's ports (those that could not be bound are tried again), closes the others, sets backends. */
  async apply(plan: MeshPlan): Promise<void> {
    if (this.closed) return;
    for (const [key, l] of this.listeners) {
      const want = plan.get(key);
      if (!want || want.serviceId !== l.entry.serviceId) this.closeListener(key, l);
    }
    for (const [key, entry] of plan) {
      let l = this.listeners.get(key);
      if (!l) {
        l = { entry, rr: 0, sessions: new Map() };
        this.listeners.set(key, l);
      }
      l.entry = entry;
      if (l.tcp || l.udp) continue;
      try {
        await this.open(l);
        this.warned.delete(key);
      } catch (err) {
        if (!this.warned.has(key)) this.d.logger.warn('routing mesh: cannot listen on a published port; trying again', { port: key, addr: this.ip, err: String(err) });
        this.warned.add(key);
      }
    }
  }

  private async open(l: Listener): Promise<void> {
    const { proto, port } = l.entry;
    if (proto === 'tcp') {
      const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => {
        this.track(s);
        this.forwardTCP(l, s);
      });
      await listenTCP(server, this.ip, port);
      if (this.listeners.get(meshKey(proto, port)) !== l || this.closed) server.close();
      else l.tcp = server;
    } else {
      const sock = dgram.createSocket('udp4');
      await bindUDP(sock, this.ip, port);
      if (this.listeners.get(meshKey(proto, port)) !== l || this.closed) sock.close();
      else {
        sock.on('message', (msg, rinfo) => this.forwardUDP(l, sock, msg, rinfo));
        l.udp = sock;
      }
    }
  }

  private closeListener(key: string, l: Listener): void {
    this.listeners.delete(key);
    l.tcp?.close();
    if (l.udp) l.udp.close();
    for (const s of l.sessions.values()) this.endSession(s);
    l.sessions.clear();
  }

  /** The backends to try for a new connection: all of them once, starting with the next in turn. */
  private order(l: Listener): MeshBackend[] {
    const b = l.entry.backends;
    if (b.length === 0) return [];
    const start = l.rr++ % b.length;
    return [...b.slice(start), ...b.slice(0, start)];
  }

  private forwardTCP(l: Listener, client: net.Socket): void {
    client.pause();
    client.on('error', () => client.destroy());
    const tries = this.order(l);
    const next = (): void => {
      const b = tries.shift();
      if (!b || client.destroyed) {
        client.destroy();
        return;
      }
      this.connectBackend(b).then(
        (up) => (client.destroyed ? up.destroy() : join(client, up)),
        () => next(),
      );
    };
    next();
  }

  /** A TCP connection to a backend: its container (local) or its node's mesh port, once the owner said OK. */
  private async connectBackend(b: MeshBackend): Promise<net.Socket> {
    if (b.nodeId === this.d.nodeId) {
      const ip = this.d.localTarget(b.taskId);
      if (!ip) throw new Error('not running');
      return this.track(await connectTCP(ip, b.targetPort));
    }
    const { host, port } = splitAddr(b.meshAddr);
    const up = this.track(await connectTCP(host, port));
    try {
      up.write(helloLine(b.taskId, b.targetPort));
      const answer = await readLine(up);
      if (answer !== 'OK') throw new Error(`refused by ${b.meshAddr}`);
      return up;
    } catch (err) {
      up.destroy();
      throw err;
    }
  }

  private forwardUDP(l: Listener, sock: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const key = `${rinfo.address}:${rinfo.port}`;
    let s = l.sessions.get(key);
    if (!s) {
      for (const b of this.order(l)) {
        const reply = (data: Buffer): void => sock.send(data, rinfo.port, rinfo.address);
        if (b.nodeId === this.d.nodeId) {
          const ip = this.d.localTarget(b.taskId);
          if (!ip) continue;
          s = this.session(l.sessions, key, { address: ip, port: b.targetPort }, undefined, reply);
        } else {
          const { host, port } = splitAddr(b.meshAddr);
          s = this.session(l.sessions, key, { address: host, port }, Buffer.from(helloLine(b.taskId, b.targetPort), 'latin1'), reply);
        }
        break;
      }
      if (!s) return;
    }
    this.sendSession(l.sessions, key, s, msg);
  }

  private session(into: Map<string, UdpSession>, key: string, to: { address: string; port: number }, prefix: Buffer | undefined, reply: (data: Buffer) => void): UdpSession {
    const sock = dgram.createSocket('udp4');
    sock.on('error', () => this.endSession(s));
    sock.on('message', (data) => {
      this.touch(into, key, s);
      reply(data);
    });
    sock.bind(0, this.ip);
    const s: UdpSession = { sock, to, prefix, timer: setTimeout(() => undefined, 0) };
    into.set(key, s);
    this.touch(into, key, s);
    return s;
  }

  private touch(into: Map<string, UdpSession>, key: string, s: UdpSession): void {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      if (into.get(key) === s) into.delete(key);
      this.endSession(s);
    }, UDP_IDLE_MS);
    s.timer.unref();
  }

  private sendSession(into: Map<string, UdpSession>, key: string, s: UdpSession, payload: Buffer): void {
    this.touch(into, key, s);
    s.sock.send(s.prefix ? [s.prefix, payload] : payload, s.to.port, s.to.address);
  }

  private endSession(s: UdpSession): void {
    clearTimeout(s.timer);
    try {
      s.sock.close();
    } catch {
      // closed already
    }
  }

  private track(s: net.Socket): net.Socket {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
    return s;
  }

  /** Closes every listener, the mesh port, sessions and connections. */
  close(): void {
    this.closed = true;
    for (const [key, l] of this.listeners) this.closeListener(key, l);
    this.meshTCP?.close();
    this.meshUDP?.close();
    this.meshTCP = undefined;
    this.meshUDP = undefined;
    for (const s of this.meshSessions.values()) this.endSession(s);
    this.meshSessions.clear();
    for (const s of this.sockets) s.destroy();
  }
}

/** Pipes two sockets both ways (half-closes pass through); an error or a full close of either ends both. */
function join(a: net.Socket, b: net.Socket): void {
  const kill = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', kill);
  b.on('error', kill);
  a.once('close', () => b.destroy());
  b.once('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
  a.resume();
  b.resume();
}

function listenTCP(server: net.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
}

function bindUDP(sock: dgram.Socket, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      sock.close();
      reject(err);
    };
    sock.once('error', onError);
    sock.bind({ address, port, exclusive: true }, () => {
      sock.removeListener('error', onError);
      resolve();
    });
  });
}
