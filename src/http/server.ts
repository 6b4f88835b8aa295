// Listeners for -H addresses (unix:///path, tcp://host:port, fd:// from systemd; see docs/operations.md). Upgrade
// requests go through the same express app, with the raw socket attached to the request for hijacking.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import type * as express from 'express';
import type { ApiRequest } from './app';
import { parseHost, type HostSpec, type TlsFiles } from './listeners';


/** The cap on a request's line and headers together. */
export const MAX_HEADER_BYTES = 64 << 10;
export { parseHost };

export interface Listener {
  address: string;
  server: http.Server | https.Server;
  /** Upgraded (hijacked) connections: the server no longer tracks them, so close() ends them itself. */
  upgraded: Set<Socket>;
  close(): Promise<void>;
}

export function attachUpgrade(server: http.Server | https.Server, app: express.Express, upgraded = new Set<Socket>()): void {
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    const r = req as unknown as ApiRequest;
    // websocket requests are handed over as they are (src/handlers use ws.handleUpgrade); tcp upgrades are hijacks.
    r.hijackable = { socket, head };
    const res = new http.ServerResponse(req);
    res.assignSocket(socket);
    res.on('finish', () => {
      if (!r.hijacked) socket.end();
    });
    socket.on('error', () => socket.destroy());
    app(req as never, res as never);
  });
}

export interface ListenOptions {
  /** TLS for tcp listeners (with a CA: client certificates required and verified in the handshake). */
  tls?: TlsFiles;
  /** Group of a unix socket (mode 0660). */
  gid?: number;
}

/** One listener. `address` is the -H form; `target` says where (for fd://, the one passed fd). */
/** Asked of listen(2), which clamps it to net.core.somaxconn. */
const LISTEN_BACKLOG = 65535;

export async function listen(app: express.Express, address: string, opts: ListenOptions = {}, target: HostSpec = parseHost(address)): Promise<Listener> {
  // The request line and headers together are capped at 64 KiB (node answers 431 beyond; X-Registry-Config with
  // many registries' credentials stays well below it). Bodies: http/query.ts caps JSON bodies, streams are not capped.
  const serverOpts: http.ServerOptions = { keepAliveTimeout: 0, requestTimeout: 0, headersTimeout: 60_000, maxHeaderSize: MAX_HEADER_BYTES };
  const tls = target.kind === 'tcp' ? opts.tls : undefined;
  const server = tls
    ? https.createServer({ ...serverOpts, key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: tls.verify, rejectUnauthorized: tls.verify, minVersion: 'TLSv1.2' }, app)
    : http.createServer(serverOpts, app);
  // No idle timeout on kept-alive connections, as the reference (Go's server with no IdleTimeout): a client pool that
  // reuses a connection just as the server drops it would see ECONNRESET (seen with Node's keep-alive agent).
  server.keepAliveTimeout = 0;
  // A failed handshake (no client certificate, another CA) ends that connection only.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  const upgraded = new Set<Socket>();
  attachUpgrade(server, app, upgraded);
  const bind = (arg: string | number | { fd: number }, host?: string) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const done = () => {
        server.off('error', reject);
        resolve();
      };
      // A backlog as the engine's (Go listens with net.core.somaxconn; a larger one is clamped to it): Node's 511
      // refused connections beyond it (EAGAIN on a unix socket) when `docker stats` of 1,000 containers opened one each.
      if (typeof arg === 'number') server.listen({ port: arg, host, backlog: LISTEN_BACKLOG }, done);
      else if (typeof arg === 'string') server.listen({ path: arg, backlog: LISTEN_BACKLOG }, done);
      else server.listen(arg as never, done);
    });
  let socketPath: string | undefined;
  if (target.kind === 'unix') {
    socketPath = target.path;
    await bindUnixAtomically(target.path, opts.gid ?? 0, (p) => bind(p));
  } else if (target.kind === 'fd') {
    await bind({ fd: target.fd! });
  } else {
    await bind(target.port, target.host);
  }
  return {
    address,
    server,
    upgraded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of upgraded) s.destroy();
        if (socketPath) {
          try {
            fs.unlinkSync(socketPath);
          } catch {
            /* gone already */
          }
        }
      }),
  };
}

/**
 * The socket is bound in a fresh 0700 directory beside the target, given mode 0660 and its group there, and renamed
 * onto the target: the path goes from the old socket (or nothing) straight to the finished one, so no client can
 * ever reach a socket with the umask's mode or the wrong group.
 */
async function bindUnixAtomically(target: string, gid: number, bind: (p: string) => Promise<void>): Promise<void> {
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const tmpDir = fs.mkdtempSync(path.join(dir, '.berth-sock-'));
  try {
    const tmp = path.join(tmpDir, 's');
    await bind(tmp);
    fs.chmodSync(tmp, 0o660);
    fs.chownSync(tmp, process.getuid?.() ?? 0, gid);
    fs.renameSync(tmp, target);
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}
