// Swarm records (docs/swarm.md): what the cluster keeps in etcd and what a node keeps on its disk. Types only.

/** The cluster's Spec, with Docker's field names (kept as the client sent it, normalised like the reference). */
export interface SwarmSpec {
  Name?: string;
  Labels?: Record<string, string> | null;
  Orchestration?: { TaskHistoryRetentionLimit?: number };
  Raft?: { SnapshotInterval?: number; KeepOldSnapshots?: number; LogEntriesForSlowFollowers?: number; ElectionTick?: number; HeartbeatTick?: number };
  Dispatcher?: { HeartbeatPeriod?: number };
  CAConfig?: { NodeCertExpiry?: number; ExternalCAs?: unknown[] };
  TaskDefaults?: Record<string, unknown>;
  EncryptionConfig?: { AutoLockManagers?: boolean };
}

/** `/berth/swarm/cluster` in etcd. */
export interface ClusterRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: SwarmSpec;
  /** The secrets of the join tokens (the digest part is the CA's). */
  workerSecret: string;
  managerSecret: string;
  caCert: string;
  /** So that every manager can sign the certificates of joining nodes. */
  caKey: string;
}

export type NodeRole = 'worker' | 'manager';
export type NodeAvailability = 'active' | 'pause' | 'drain';

export interface NodeSpec {
  Name?: string;
  Labels?: Record<string, string> | null;
  Role: NodeRole;
  Availability: NodeAvailability;
}

export interface NodeDescription {
  hostname: string;
  architecture: string;
  os: string;
  nanoCPUs: number;
  memoryBytes: number;
  engineVersion: string;
}

/** `/berth/swarm/nodes/<id>` in etcd. */
export interface NodeRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: NodeSpec;
  description: NodeDescription;
  /** The node's advertise IP (Status.Addr). */
  addr: string;
  /** ip:port of its cluster endpoint (ManagerStatus.Addr). */
  managerAddr: string;
  /** etcd peer and client URLs it serves when it is a manager. */
  peerURL: string;
  clientURL: string;
  /** Set when the node is (to become) a manager: the --initial-cluster its new etcd member starts with. */
  etcdInitialCluster?: string;
}

/** A record as read from etcd, with the key's mod revision (the wire Version.Index). */
export interface Versioned<T> {
  value: T;
  version: number;
}

/** A node as listed: its record plus liveness and leadership. */
export interface NodeView {
  node: Versioned<NodeRecord>;
  ready: boolean;
  leader: boolean;
  caCert: string;
}

/** A task (filled by swarm part 2). */
export interface TaskRecord {
  ID: string;
  ServiceID: string;
  NodeID?: string;
  Slot?: number;
  DesiredState: string;
  Labels?: Record<string, string>;
  Name?: string;
  [field: string]: unknown;
}

/** The etcd settings a manager's member runs with, from Spec.Raft (translate/response/swarm etcdRaftOf). */
export interface EtcdRaft {
  heartbeatMs: number;
  electionMs: number;
  snapshotCount: number;
  maxSnapshots: number;
}

/** What a node keeps in `<data-root>/swarm/state.json`. */
export interface LocalSwarmState {
  nodeId: string;
  clusterId: string;
  role: NodeRole;
  /** The advertise IP and the cluster endpoint's listen address (ip:port). */
  advertiseAddr: string;
  listenAddr: string;
  /** etcd client URLs of the managers known when this node last looked. */
  etcdEndpoints: string[];
  /** Set when the swarm lives in an existing etcd (`--cluster-store`): its client URLs; no member of its own. */
  store?: string[];
  /** For a manager: how its etcd was started (the first start; later starts reuse the data directory). */
  etcd?: { initialCluster: string; state: 'new' | 'existing'; raft?: EtcdRaft };
}

/** GET /info's Swarm section, as the service gathers it. */
export interface SwarmInfo {
  nodeId: string;
  nodeAddr: string;
  state: 'inactive' | 'pending' | 'active' | 'error' | 'locked';
  controlAvailable: boolean;
  error: string;
  remoteManagers: { NodeID: string; Addr: string }[] | null;
  nodes?: number;
  managers?: number;
  cluster?: Versioned<ClusterRecord>;
}
