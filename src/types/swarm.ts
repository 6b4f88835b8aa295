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
  /** The daemon's --label labels (constraints engine.labels.*). */
  engineLabels?: Record<string, string>;
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

/** Task states in their order (api/types/swarm TaskState). */
export type TaskState =
  | 'new' | 'allocated' | 'pending' | 'assigned' | 'accepted' | 'preparing' | 'ready' | 'starting' | 'running'
  | 'complete' | 'shutdown' | 'failed' | 'rejected' | 'remove' | 'orphaned';

export interface TaskStatus {
  Timestamp: string;
  State: TaskState;
  Message: string;
  Err?: string;
  ContainerStatus?: { ContainerID: string; PID: number; ExitCode: number };
}

/** A mount of a ContainerSpec (bind, volume or tmpfs). */
export interface ServiceMount {
  Type?: string;
  Source?: string;
  Target?: string;
  ReadOnly?: boolean;
  [field: string]: unknown;
}

export interface ContainerSpec {
  Image: string;
  Labels?: Record<string, string>;
  Command?: string[];
  Args?: string[];
  Hostname?: string;
  Env?: string[];
  Dir?: string;
  User?: string;
  Mounts?: ServiceMount[];
  StopGracePeriod?: number;
  Isolation?: string;
  [field: string]: unknown;
}

export interface ResourceSpec {
  NanoCPUs?: number;
  MemoryBytes?: number;
}

export interface RestartPolicySpec {
  Condition?: 'none' | 'on-failure' | 'any';
  Delay?: number;
  MaxAttempts?: number;
  Window?: number;
}

/** A service's TaskTemplate (a task keeps the one it was made from as its Spec). */
export interface TaskSpec {
  ContainerSpec?: ContainerSpec;
  Resources?: { Limits?: ResourceSpec; Reservations?: ResourceSpec };
  RestartPolicy?: RestartPolicySpec;
  Placement?: { Constraints?: string[] };
  LogDriver?: { Name?: string; Options?: Record<string, string> };
  Networks?: { Target: string; Aliases?: string[] }[];
  ForceUpdate: number;
  Runtime?: string;
  [field: string]: unknown;
}

export interface PortConfig {
  Name?: string;
  Protocol: 'tcp' | 'udp' | 'sctp';
  TargetPort: number;
  PublishedPort?: number;
  PublishMode: 'ingress' | 'host';
}

export interface EndpointSpec {
  Mode?: 'vip' | 'dnsrr';
  Ports?: PortConfig[];
}

export interface UpdateConfigSpec {
  Parallelism: number;
  Delay?: number;
  FailureAction?: 'pause' | 'continue' | 'rollback';
  Monitor?: number;
  MaxFailureRatio: number;
  Order?: string;
}

/** ServiceSpec with Docker's field names, in the reference's stored form. */
export interface ServiceSpec {
  Name: string;
  Labels: Record<string, string>;
  TaskTemplate: TaskSpec;
  Mode: { Replicated?: { Replicas: number }; Global?: Record<string, never> };
  UpdateConfig?: UpdateConfigSpec;
  Networks?: { Target: string; Aliases?: string[] }[];
  EndpointSpec?: EndpointSpec;
}

export interface UpdateStatus {
  State: 'updating' | 'paused' | 'completed';
  StartedAt: string;
  CompletedAt?: string;
  Message: string;
}

/** `/berth/swarm/services/<id>` in etcd. */
export interface ServiceRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: ServiceSpec;
  previousSpec?: ServiceSpec;
  /** The endpoint's ports with the published ports assigned. */
  ports: PortConfig[];
  updateStatus?: UpdateStatus;
  /** Bumped by each update: a task made from an older spec is updated. */
  specVersion: number;
  /**
   * The X-Registry-Auth header of the create (or of the last update that sent one), as sent: the nodes pull the
   * task's image with it. Never shown (the reference keeps it in ContainerSpec.PullOptions, absent from the API).
   */
  registryAuth?: string;
  /** Endpoint.VirtualIPs: an address on each of its overlay networks (`vip` mode), allocated by the leader. */
  virtualIPs?: { NetworkID: string; Addr: string }[];
}

/** `/berth/swarm/tasks/<id>` in etcd. */
export interface TaskRecord {
  ID: string;
  CreatedAt: string;
  UpdatedAt: string;
  Labels: Record<string, string>;
  Spec: TaskSpec;
  ServiceID: string;
  /** Replicated tasks only. */
  Slot?: number;
  NodeID?: string;
  Status: TaskStatus;
  DesiredState: 'running' | 'shutdown' | 'ready';
  /** berth's: the service's name (container and task names), its specVersion when the task was made. */
  serviceName: string;
  specVersion: number;
  /** berth's: made to replace a task that ended (RestartPolicy.MaxAttempts counts these). */
  cause?: 'restart';
  /** berth's: why its DesiredState became shutdown (a task that ended by itself: failed). */
  endedBy?: 'failed' | 'node' | 'update' | 'scale' | 'removed';
  /** berth's: the task's address on each overlay network of its service (NetworksAttachments), from the leader. */
  networks?: { networkId: string; addr: string }[];
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
