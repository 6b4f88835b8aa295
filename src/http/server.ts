// Listeners for -H addresses (unix:///path, tcp://host:port, fd:// is not supported). Upgrade requests go through
// the same express app, with the raw socket attached to the request for hijacking.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import type express from 'express';
import type { ApiRequest } from './app';

export interface Listener {
  address: string;
  server: http.Server;
  /** Upgraded (hijacked) connections: the server no longer tracks them, so close() ends them itself. */
  upgraded: Set<Socket>;
  close(): Promise<void>;
}

export function parseHost(h: string): { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number } {
  if (h.startsWith('unix://')) return { kind: 'unix', path: h.slice('unix://'.length) };
  if (h.startsWith('/')) return { kind: 'unix', path: h };
  const m = /^(?:tcp:\/\/)?(\[[^\]]*\]|[^:/]*)?:(\d+)\/?$/.exec(h);
  if (m) return { kind: 'tcp', host: (m[1] || '127.0.0.1').replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  throw new Error(`invalid host address: ${h}`);
}

export function attachUpgrade(server: http.Server, app: express.Express, upgraded = new Set<Socket>()): void {
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

export async function listen(app: express.Express, address: string): Promise<Listener> {
  const server = http.createServer({ keepAliveTimeout: 0, requestTimeout: 0, headersTimeout: 60_000 }, app);
  // No idle timeout on kept-alive connections, as the reference (Go's server with no IdleTimeout): a client pool that
  // reuses a connection just as the server drops it would see ECONNRESET (seen with Node's keep-alive agent).
  server.keepAliveTimeout = 0;
  const upgraded = new Set<Socket>();
  attachUpgrade(server, app, upgraded);
  const spec = parseHost(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (spec.kind === 'unix') {
      fs.mkdirSync(path.dirname(spec.path), { recursive: true });
      try {
        fs.unlinkSync(spec.path);
      } catch {
        /* not there */
      }
      server.listen(spec.path, () => {
        fs.chmodSync(spec.path, 0o660);
        resolve();
      });
    } else {
      server.listen(spec.port, spec.host, () => resolve());
    }
  });
  return {
    address,
    server,
    upgraded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of upgraded) s.destroy();
      }),
  };
}
