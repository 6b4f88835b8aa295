// berth's own etcd member, for a manager node: started detached (like berth's containerd, it outlives a berth
// restart, so a SIGKILLed berth finds its member still serving), checked every 2 s and started again if it died.
// Its data directory, log and pid file live under <data-root>/swarm/.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Logger } from '../log';

export interface EtcdMember {
  name: string;
  dataDir: string;
  /** The IP it binds (the node's advertise address) and its two ports. */
  ip: string;
  clientPort: number;
  peerPort: number;
  initialCluster: string;
  initialState: 'new' | 'existing';
  clusterToken: string;
  certs: { ca: string; cert: string; key: string };
  log: string;
  pidFile: string;
}

export const clientURL = (ip: string, port: number): string => `https://${ip}:${port}`;
export const peerURL = (ip: string, port: number): string => `https://${ip}:${port}`;

export function etcdArgs(m: EtcdMember): string[] {
  const client = clientURL(m.ip, m.clientPort);
  const peer = peerURL(m.ip, m.peerPort);
  return [
    '--name', m.name,
    '--data-dir', m.dataDir,
    '--listen-client-urls', client,
    '--advertise-client-urls', client,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', m.initialCluster,
    '--initial-cluster-state', m.initialState,
    '--initial-cluster-token', m.clusterToken,
    '--cert-file', m.certs.cert, '--key-file', m.certs.key, '--trusted-ca-file', m.certs.ca, '--client-cert-auth',
    '--peer-cert-file', m.certs.cert, '--peer-key-file', m.certs.key, '--peer-trusted-ca-file', m.certs.ca, '--peer-client-cert-auth',
    // Fast failure detection on one machine; leases (heartbeats) need an election timeout below their TTL.
    '--heartbeat-interval', '100',
    '--election-timeout', '1000',
    '--logger', 'zap',
    '--log-outputs', 'stderr',
  ];
}

/** Whether something accepts TCP connections on ip:port. */
export function tcpAlive(ip: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: ip, port });
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

function pidAlive(pidFile: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (!pid) return undefined;
    process.kill(pid, 0);
    // A recycled pid is not ours: ours runs etcd with our data directory.
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmd.includes('etcd') ? pid : undefined;
  } catch {
    return undefined;
  }
}

export class EtcdSupervisor {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    readonly member: EtcdMember,
    private readonly logger: Logger,
    private readonly binary = 'etcd',
  ) {}

  /** Starts the member unless it is already running (a previous berth started it); resolves when it listens. */
  async ensure(timeoutMs = 15_000): Promise<void> {
    if (!pidAlive(this.member.pidFile)) this.spawn();
    await this.waitListening(timeoutMs);
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.check(), 2000);
      this.timer.unref();
    }
  }

  private spawn(): void {
    const m = this.member;
    fs.mkdirSync(path.dirname(m.dataDir), { recursive: true, mode: 0o700 });
    const out = fs.openSync(m.log, 'a');
    const child = spawn(this.binary, etcdArgs(m), { detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    child.on('error', (err) => this.logger.error('cannot start etcd', { err: String(err) }));
    if (child.pid) fs.writeFileSync(m.pidFile, String(child.pid));
    child.unref();
    this.logger.info('started etcd', { pid: child.pid, client: clientURL(m.ip, m.clientPort) });
  }

  private async waitListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await tcpAlive(this.member.ip, this.member.clientPort)) return;
      if (!pidAlive(this.member.pidFile)) throw new Error(`etcd exited (see ${this.member.log})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd did not start listening on ${this.member.ip}:${this.member.clientPort} (see ${this.member.log})`);
  }

  private async check(): Promise<void> {
    if (this.stopped || pidAlive(this.member.pidFile)) return;
    this.logger.warn('etcd is gone; restarting it');
    try {
      this.spawn();
      await this.waitListening(15_000);
    } catch (err) {
      this.logger.error('etcd restart failed', { err: String(err) });
    }
  }

  /** Stops supervising; etcd keeps running (a restarted berth re-attaches). */
  close(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Stops supervising and stops etcd (leave, or an init that failed): SIGTERM, then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    this.close();
    const pid = pidAlive(this.member.pidFile);
    if (!pid) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
