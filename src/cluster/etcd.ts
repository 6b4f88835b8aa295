// berth's own etcd member, for a manager node: started detached (like berth's containerd, it outlives a berth
// restart, so a SIGKILLed berth finds its member still serving), checked every 2 s and started again if it died.
// Its data directory, log and pid file live under <data-root>/swarm/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../log';
import type { EtcdRaft } from '../types/swarm';
import { connectable, DetachedKeeper, spawnDetached } from '../containerd/supervisor';

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
  /** Spec.Raft as etcd settings (read at each start of the member). */
  raft: EtcdRaft;
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
    // Spec.Raft: with the defaults (1 and 10 ticks of 100 ms), fast failure detection on one machine; leases
    // (heartbeats) need an election timeout below their TTL.
    '--heartbeat-interval', String(m.raft.heartbeatMs),
    '--election-timeout', String(m.raft.electionMs),
    '--snapshot-count', String(m.raft.snapshotCount),
    '--max-snapshots', String(m.raft.maxSnapshots),
    '--logger', 'zap',
    '--log-outputs', 'stderr',
  ];
}

/** Whether something accepts TCP connections on ip:port. */
export function tcpAlive(ip: string, port: number, timeoutMs = 500): Promise<boolean> {
  return connectable({ host: ip, port }, timeoutMs);
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
  private readonly keeper: DetachedKeeper;

  constructor(
    readonly member: EtcdMember,
    private readonly logger: Logger,
    private readonly binary = 'etcd',
  ) {
    this.keeper = new DetachedKeeper(
      {
        name: 'etcd',
        address: `${member.ip}:${member.clientPort}`,
        log: member.log,
        running: async () => !!pidAlive(member.pidFile),
        listening: () => tcpAlive(member.ip, member.clientPort),
        exited: () => !pidAlive(member.pidFile),
        spawn: () => this.spawn(),
      },
      logger,
    );
  }

  /** Starts the member unless it is already running (a previous berth started it); resolves when it listens. */
  ensure(timeoutMs = 15_000): Promise<void> {
    return this.keeper.ensure(timeoutMs);
  }

  private spawn(): void {
    const m = this.member;
    fs.mkdirSync(path.dirname(m.dataDir), { recursive: true, mode: 0o700 });
    spawnDetached(this.binary, etcdArgs(m), m, this.logger, 'etcd', { client: clientURL(m.ip, m.clientPort) });
  }

  /** Stops supervising; etcd keeps running (a restarted berth re-attaches). */
  close(): void {
    this.keeper.close();
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
