// The cluster endpoint (docs/swarm.md, "join"): every manager serves HTTPS on its ListenAddr with its CA-signed node
// certificate. A joining node first fetches the CA certificate without trusting it (GET /ca), checks its digest
// against the join token's and that the server's certificate was issued by it, then sends its secret and CSR over
// a connection that trusts that CA only (POST /join). The manager answers with the node's identity, certificate
// and how to reach (or, for a manager, become part of) etcd.
import * as crypto from 'node:crypto';
import * as https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { BerthError, invalidParameter, unavailable } from '../errors';
import type { Logger } from '../log';
import type { EtcdRaft, NodeDescription } from '../types/swarm';

export interface JoinRequest {
  secret: string;
  csr: string;
  advertiseIP: string;
  advertisePort: number;
  listenPort: number;
  description: NodeDescription;
}

export interface JoinResponse {
  nodeId: string;
  clusterId: string;
  role: 'worker' | 'manager';
  cert: string;
  caCert: string;
  /** etcd client URLs of the managers. */
  etcdEndpoints: string[];
  /** For a manager: the --initial-cluster its new etcd member starts with. */
  initialCluster?: string;
  /** For a manager: the etcd settings of Spec.Raft. */
  raft?: EtcdRaft;
  /** Set when the swarm lives in an existing etcd: its client URLs (the node starts no member). */
  store?: string[];
}

const MAX_BODY = 1 << 20;

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        return;
      }
      parts.push(c);
    });
    stream.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    stream.on('error', reject);
  });
}

export class JoinServer {
  private server?: https.Server;

  constructor(
    private readonly accept: (req: JoinRequest) => Promise<JoinResponse>,
    /** A node's certificate renewal: `nodeId` from the client certificate it presented (the CA's). */
    private readonly renew: (nodeId: string, csr: string) => Promise<{ cert: string }>,
    private readonly logger: Logger,
  ) {}

  async listen(ip: string, port: number, tls: { cert: string; key: string; ca: string }): Promise<void> {
    // A client certificate is asked for (a joining node has none yet; a renewing node shows its current one).
    const server = https.createServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => void this.handle(req, res, tls.ca));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, ip, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.logger.error('cluster endpoint failed', { err: String(err) }));
    this.server = server;
  }

  private async handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, caCert: string): Promise<void> {
    const send = (status: number, body: unknown) => {
      const data = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
      res.end(data);
    };
    try {
      if (req.method === 'GET' && req.url === '/ca') return send(200, { caCert });
      if (req.method === 'POST' && req.url === '/join') {
        const body = JSON.parse(await readAll(req)) as JoinRequest;
        return send(200, await this.accept(body));
      }
      if (req.method === 'POST' && req.url === '/renew') {
        const sock = req.socket as TLSSocket;
        const nodeId = sock.authorized ? sock.getPeerCertificate()?.subject?.CN : undefined;
        if (!nodeId || typeof nodeId !== 'string') return send(403, { kind: 'Forbidden', message: 'a node certificate issued by this cluster is necessary to renew it' });
        const body = JSON.parse(await readAll(req)) as { csr?: string };
        return send(200, await this.renew(nodeId, String(body.csr)));
      }
      send(404, { kind: 'NotFound', message: 'page not found' });
    } catch (err) {
      const e = err instanceof BerthError ? err : new BerthError('System', String((err as Error)?.message ?? err));
      send(e.kind === 'InvalidParameter' ? 400 : e.kind === 'Unavailable' ? 503 : 500, { kind: e.kind, message: e.message });
    }
  }

  /** A renewed certificate for the endpoint (new connections present it). */
  setCertificate(tls: { cert: string; key: string; ca: string }): void {
    this.server?.setSecureContext({ cert: tls.cert, key: tls.key, ca: tls.ca });
  }

  close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return Promise.resolve();
    s.closeAllConnections();
    return new Promise((r) => s.close(() => r()));
  }
}

function call<T>(addr: { host: string; port: number }, method: string, path: string, body: unknown, tls: { ca?: string; cert?: string; key?: string }, onSocket?: (s: TLSSocket) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: addr.host,
        port: addr.port,
        method,
        path,
        agent: false,
        timeout: 20_000,
        ...(tls.ca ? { ca: tls.ca, servername: 'localhost', checkServerIdentity: () => undefined } : { rejectUnauthorized: false }),
        ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
        headers: data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {},
      },
      (res) => {
        if (onSocket) onSocket(res.socket as TLSSocket);
        readAll(res).then((text) => {
          let parsed: { kind?: string; message?: string } & T;
          try {
            parsed = JSON.parse(text);
          } catch {
            return reject(unavailable(`rpc error: code = Unavailable desc = the manager at ${addr.host}:${addr.port} answered something that is not a berth cluster endpoint`));
          }
          if (res.statusCode === 200) return resolve(parsed);
          reject(new BerthError((parsed.kind as BerthError['kind']) ?? 'System', parsed.message ?? `status ${res.statusCode}`));
        }, reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('i/o timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'ECONNREFUSED' ? 'connect: connection refused' : err.message;
      reject(unavailable(`rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp ${addr.host}:${addr.port}: ${why}"`));
    });
    if (data) req.write(data);
    req.end();
  });
}

/**
 * The joining side: trust the manager's CA only if its digest is the token's and it issued the certificate the
 * manager presents; then ask to join.
 */
export async function requestJoin(addr: { host: string; port: number }, digest: string, digestOf: (pem: string) => string, req: JoinRequest): Promise<JoinResponse> {
  let peer: Buffer | undefined;
  const { caCert } = await call<{ caCert: string }>(addr, 'GET', '/ca', undefined, {}, (s) => {
    peer = s.getPeerCertificate()?.raw;
  });
  if (digestOf(caCert) !== digest) {
    throw invalidParameter(`remote CA does not match fingerprint. Expected: ${digest}`);
  }
  const ca = new crypto.X509Certificate(caCert);
  if (!peer || !new crypto.X509Certificate(peer).verify(ca.publicKey)) {
    throw invalidParameter('the manager presented a certificate its CA did not issue');
  }
  return call<JoinResponse>(addr, 'POST', '/join', req, { ca: caCert });
}

/** A node's certificate renewal at a manager's cluster endpoint, authenticated by its current certificate. */
export function requestRenewal(addr: { host: string; port: number }, tls: { ca: string; cert: string; key: string }, csr: string): Promise<{ cert: string }> {
  return call<{ cert: string }>(addr, 'POST', '/renew', { csr }, tls);
}
