// Networks and a container's place on them — types only.

export interface IPAMEntry {
  Subnet?: string;
  IPRange?: string;
  Gateway?: string;
  AuxiliaryAddresses?: Record<string, string>;
  /** The Gateway was chosen (a Subnet was given without one): the engine does not show it in the network's IPAM. */
  GatewayChosen?: boolean;
}

export interface NetworkRecord {
  Name: string;
  Id: string;
  Created: string;
  Scope: 'local' | 'swarm';
  Driver: string;
  EnableIPv6: boolean;
  Internal: boolean;
  IPAM: { Driver: string; Options: Record<string, string> | null; Config: IPAMEntry[] };
  Options: Record<string, string>;
  Labels: Record<string, string>;
  /** The Linux bridge of a bridge-driver network. */
  BridgeName?: string;
  Predefined?: boolean;
  /** The subnet was given at create (fixed container addresses are allowed only then). */
  ConfiguredSubnet?: boolean;
  /** Swarm-scoped (overlay) networks: the reference's Attachable and Ingress, and the VXLAN id. */
  Attachable?: boolean;
  Ingress?: boolean;
  vni?: number;
  /** A swarm network's etcd mod revision as last read (its Version.Index). */
  version?: number;
}

/**
 * The swarm's networks as a node sees them (docs/overlay.md): the network service lists them next to its own
 * and hands creates and removes of the overlay driver here. The cluster implements it; services never import it.
 */
export interface SwarmNetworkSource {
  /** The cached records (refreshed by `refresh`). */
  list(): NetworkRecord[];
  /** Reads the records from the cluster again (a node outside a swarm has none). */
  refresh(): Promise<void>;
  create(req: CreateNetworkRequest): Promise<{ id: string; warning: string }>;
  remove(id: string): Promise<void>;
  /** The node's driver of a swarm network (plugs containers into it). */
  driver(id: string): NetworkDriver | undefined;
}

/** What plugs a container into a network (the bridge driver through CNI, the overlay driver of the cluster). */
export interface NetworkDriver {
  attach(containerId: string, ns: string, a: { ifname: string; ip?: string; ip6?: string; mac?: string; ports?: unknown }): Promise<Omit<Endpoint, 'network' | 'networkId' | 'endpointId'>>;
  detach(containerId: string, ns: string, ep: Endpoint): Promise<void>;
  releaseStaleLeases(running: Set<string>): Promise<number>;
  destroy(): Promise<void>;
}

export interface CreateNetworkRequest {
  Name?: string;
  Attachable?: boolean;
  Ingress?: boolean;
  CheckDuplicate?: boolean;
  Driver?: string;
  IPAM?: { Driver?: string; Config?: (IPAMEntry & { AuxAddress?: Record<string, string> })[] | null; Options?: Record<string, string> | null } | null;
  Internal?: boolean;
  EnableIPv6?: boolean;
  Options?: Record<string, string> | null;
  Labels?: Record<string, string> | null;
}

export interface PortBinding {
  HostIp: string;
  HostPort: string;
}

export interface Endpoint {
  /** network name and id */
  network: string;
  networkId?: string;
  endpointId?: string;
  /** the interface in the container (eth0, eth1, ...) */
  ifname?: string;
  ip: string;
  prefixLen: number;
  gateway: string;
  /** the IPv6 address, prefix and gateway on a dual-stack network ('' and 0 otherwise) */
  ip6?: string;
  prefixLen6?: number;
  gateway6?: string;
  mac: string;
  /** "80/tcp" → bindings as published */
  ports: Record<string, PortBinding[] | null>;
  mappings: { hostPort: number; containerPort: number; protocol: string; hostIP: string }[];
  result?: CniResult;
}

export interface EndpointConfig {
  NetworkID: string;
  Aliases: string[] | null;
  IPAMConfig: { IPv4Address?: string; IPv6Address?: string } | null;
  Links: string[] | null;
}

export interface NetworkingConfig {
  EndpointsConfig?: Record<string, { IPAMConfig?: { IPv4Address?: string; IPv6Address?: string } | null; Links?: string[] | null; Aliases?: string[] | null }>;
}

export interface CniResult {
  cniVersion: string;
  interfaces?: { name: string; mac?: string; sandbox?: string }[];
  ips?: { address: string; gateway?: string; interface?: number }[];
  routes?: unknown[];
  dns?: unknown;
}
