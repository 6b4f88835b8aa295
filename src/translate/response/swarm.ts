// Swarm records → the wire's Swarm, Node, Task and Info.Swarm objects as the reference (Docker 20.10) writes them
// at 1.24 — pure. Timestamps are stored as RFC 3339 strings already.
import type { ClusterRecord, EtcdRaft, NodeView, SwarmInfo, SwarmSpec, Versioned } from '../../types/swarm';

/** The Spec defaults of a new cluster (what the reference shows after `docker swarm init`). */
export const DEFAULT_SWARM_SPEC: SwarmSpec = {
  Name: 'default',
  Labels: {},
  Orchestration: { TaskHistoryRetentionLimit: 5 },
  Raft: { SnapshotInterval: 10000, KeepOldSnapshots: 0, LogEntriesForSlowFollowers: 500, ElectionTick: 10, HeartbeatTick: 1 },
  Dispatcher: { HeartbeatPeriod: 5_000_000_000 },
  CAConfig: { NodeCertExpiry: 7_776_000_000_000_000 },
  TaskDefaults: {},
  EncryptionConfig: { AutoLockManagers: false },
};

const nz = (n: number | undefined): n is number => typeof n === 'number' && n !== 0;

/**
 * init: the defaults, with every non-zero field of the request's Spec over them (the reference's merge; update,
 * by contrast, replaces the whole Spec).
 */
export function mergeInitSpec(given: SwarmSpec | undefined): SwarmSpec {
  const d = DEFAULT_SWARM_SPEC;
  const g = given ?? {};
  const pick = (a: number | undefined, b: number | undefined) => (nz(a) ? a : b);
  return {
    Name: 'default',
    Labels: g.Labels && Object.keys(g.Labels).length ? g.Labels : {},
    Orchestration: { TaskHistoryRetentionLimit: pick(g.Orchestration?.TaskHistoryRetentionLimit, d.Orchestration!.TaskHistoryRetentionLimit) },
    Raft: {
      SnapshotInterval: pick(g.Raft?.SnapshotInterval, d.Raft!.SnapshotInterval),
      KeepOldSnapshots: pick(g.Raft?.KeepOldSnapshots, d.Raft!.KeepOldSnapshots),
      LogEntriesForSlowFollowers: pick(g.Raft?.LogEntriesForSlowFollowers, d.Raft!.LogEntriesForSlowFollowers),
      ElectionTick: pick(g.Raft?.ElectionTick, d.Raft!.ElectionTick),
      HeartbeatTick: pick(g.Raft?.HeartbeatTick, d.Raft!.HeartbeatTick),
    },
    Dispatcher: { HeartbeatPeriod: pick(g.Dispatcher?.HeartbeatPeriod, d.Dispatcher!.HeartbeatPeriod) },
    CAConfig: { NodeCertExpiry: pick(g.CAConfig?.NodeCertExpiry, d.CAConfig!.NodeCertExpiry) },
    TaskDefaults: {},
    EncryptionConfig: { AutoLockManagers: !!g.EncryptionConfig?.AutoLockManagers },
  };
}

/** update: the request's Spec as it is, in the reference's stored form (zero fields dropped where it drops them). */
export function normalizeUpdateSpec(g: SwarmSpec | undefined): SwarmSpec {
  const s = g ?? {};
  const raft: NonNullable<SwarmSpec['Raft']> = {};
  if (nz(s.Raft?.SnapshotInterval)) raft.SnapshotInterval = s.Raft!.SnapshotInterval;
  raft.KeepOldSnapshots = s.Raft?.KeepOldSnapshots ?? 0;
  if (nz(s.Raft?.LogEntriesForSlowFollowers)) raft.LogEntriesForSlowFollowers = s.Raft!.LogEntriesForSlowFollowers;
  raft.ElectionTick = s.Raft?.ElectionTick ?? 0;
  raft.HeartbeatTick = s.Raft?.HeartbeatTick ?? 0;
  return {
    Name: 'default',
    Labels: s.Labels ?? {},
    Orchestration: { TaskHistoryRetentionLimit: s.Orchestration?.TaskHistoryRetentionLimit ?? 0 },
    Raft: raft,
    Dispatcher: nz(s.Dispatcher?.HeartbeatPeriod) ? { HeartbeatPeriod: s.Dispatcher!.HeartbeatPeriod } : {},
    CAConfig: nz(s.CAConfig?.NodeCertExpiry) ? { NodeCertExpiry: s.CAConfig!.NodeCertExpiry } : {},
    TaskDefaults: {},
    EncryptionConfig: { AutoLockManagers: !!s.EncryptionConfig?.AutoLockManagers },
  };
}

/** One Raft tick in berth's etcd: swarmkit's is 1 s; etcd's defaults (100 ms heartbeat) keep failover fast here. */
export const RAFT_TICK_MS = 100;

/**
 * Spec.Raft as etcd settings (a zero or missing field is the default, as the reference reads it):
 * HeartbeatTick and ElectionTick in ticks of RAFT_TICK_MS (etcd's --heartbeat-interval, --election-timeout; the
 * election timeout at least 5 heartbeats and at most 50 s, etcd's bounds), SnapshotInterval as --snapshot-count,
 * KeepOldSnapshots as --max-snapshots (etcd counts the current snapshot, and 0 is unlimited there: one more).
 * LogEntriesForSlowFollowers has no etcd 3.4 setting (its catch-up is fixed at 5000 entries).
 */
export function etcdRaftOf(spec: SwarmSpec): EtcdRaft {
  const d = DEFAULT_SWARM_SPEC.Raft!;
  const r = spec.Raft ?? {};
  const heartbeatMs = Math.min(10_000, (nz(r.HeartbeatTick) ? r.HeartbeatTick : d.HeartbeatTick!) * RAFT_TICK_MS);
  const electionMs = Math.min(50_000, Math.max(5 * heartbeatMs, (nz(r.ElectionTick) ? r.ElectionTick : d.ElectionTick!) * RAFT_TICK_MS));
  return {
    heartbeatMs,
    electionMs,
    snapshotCount: nz(r.SnapshotInterval) ? r.SnapshotInterval : d.SnapshotInterval!,
    maxSnapshots: (r.KeepOldSnapshots ?? 0) + 1,
  };
}

/** Dispatcher.HeartbeatPeriod in ms (the default when the Spec has none). */
export function heartbeatPeriodMs(spec: SwarmSpec): number {
  const ns = spec.Dispatcher?.HeartbeatPeriod;
  return Math.round((nz(ns) ? ns : DEFAULT_SWARM_SPEC.Dispatcher!.HeartbeatPeriod!) / 1e6);
}

export interface TLSInfoFacts {
  trustRoot: string;
  subject: string;
  publicKey: string;
}

const tlsInfo = (t: TLSInfoFacts) => ({ TrustRoot: t.trustRoot, CertIssuerSubject: t.subject, CertIssuerPublicKey: t.publicKey });

/** The cluster object without JoinTokens (Info.Swarm.Cluster) … */
export function toClusterInfoJSON(c: Versioned<ClusterRecord>, tls: TLSInfoFacts): Record<string, unknown> {
  return {
    ID: c.value.id,
    Version: { Index: c.version },
    CreatedAt: c.value.createdAt,
    UpdatedAt: c.value.updatedAt,
    Spec: c.value.spec,
    TLSInfo: tlsInfo(tls),
    RootRotationInProgress: false,
    DefaultAddrPool: ['10.0.0.0/8'],
    SubnetSize: 24,
    DataPathPort: 4789,
  };
}

/** … and GET /swarm's, with them. */
export function toSwarmJSON(c: Versioned<ClusterRecord>, tls: TLSInfoFacts, tokens: { worker: string; manager: string }): Record<string, unknown> {
  return { ...toClusterInfoJSON(c, tls), JoinTokens: { Worker: tokens.worker, Manager: tokens.manager } };
}

/** The plugins a node's description lists: berth's drivers, sorted as the reference sorts them. */
const ENGINE_PLUGINS = [
  { Type: 'Log', Name: 'json-file' },
  { Type: 'Network', Name: 'bridge' },
  { Type: 'Network', Name: 'host' },
  { Type: 'Network', Name: 'null' },
  { Type: 'Volume', Name: 'local' },
];

export function toNodeJSON(v: NodeView, tls: TLSInfoFacts): Record<string, unknown> {
  const n = v.node.value;
  const spec: Record<string, unknown> = {};
  if (n.spec.Name) spec.Name = n.spec.Name;
  spec.Labels = n.spec.Labels ?? {};
  spec.Role = n.spec.Role;
  spec.Availability = n.spec.Availability;
  const out: Record<string, unknown> = {
    ID: n.id,
    Version: { Index: v.node.version },
    CreatedAt: n.createdAt,
    UpdatedAt: n.updatedAt,
    Spec: spec,
    Description: {
      Hostname: n.description.hostname,
      Platform: { Architecture: n.description.architecture, OS: n.description.os },
      Resources: { NanoCPUs: n.description.nanoCPUs, MemoryBytes: n.description.memoryBytes },
      Engine: { EngineVersion: n.description.engineVersion, ...(n.description.engineLabels && Object.keys(n.description.engineLabels).length ? { Labels: n.description.engineLabels } : {}), Plugins: ENGINE_PLUGINS },
      TLSInfo: tlsInfo(tls),
    },
    Status: { State: v.ready ? 'ready' : 'down', Addr: n.addr },
  };
  if (n.spec.Role === 'manager') {
    const ms: Record<string, unknown> = {};
    if (v.leader) ms.Leader = true;
    ms.Reachability = v.ready ? 'reachable' : 'unreachable';
    ms.Addr = n.managerAddr;
    out.ManagerStatus = ms;
  }
  return out;
}

/** Info.Swarm for a node in a swarm (a manager adds Nodes, Managers and Cluster). */
export function toInfoSwarmJSON(s: SwarmInfo, tls?: TLSInfoFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {
    NodeID: s.nodeId,
    NodeAddr: s.nodeAddr,
    LocalNodeState: s.state,
    ControlAvailable: s.controlAvailable,
    Error: s.error,
    RemoteManagers: s.remoteManagers,
  };
  if (s.controlAvailable && s.cluster && tls) {
    out.Nodes = s.nodes ?? 0;
    out.Managers = s.managers ?? 0;
    out.Cluster = toClusterInfoJSON(s.cluster, tls);
  }
  return out;
}
