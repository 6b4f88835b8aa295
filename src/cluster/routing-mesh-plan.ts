// The routing mesh's decisions (docs/routing-mesh.md), pure: from the services, tasks, nodes and alive keys read in
// etcd, the ports a node listens on and each port's backends (the running tasks, with the node that runs each).
import type { NodeRecord, ServiceRecord, TaskRecord } from '../types/swarm';

export type MeshProto = 'tcp' | 'udp';

export interface MeshBackend {
  taskId: string;
  nodeId: string;
  /** ip:port of the owner's mesh port (remote backends are reached through it). */
  meshAddr: string;
  targetPort: number;
}

export interface MeshPort {
  proto: MeshProto;
  port: number;
  serviceId: string;
  backends: MeshBackend[];
}

/** `proto/port` → what a node serves there. */
export type MeshPlan = Map<string, MeshPort>;

export const meshKey = (proto: string, port: number): string => `${proto}/${port}`;

/** A node's mesh port: its advertise IP and its cluster port + 1 (etcd's client and peer ports are + 2 and + 3). */
export function meshAddrOf(node: Pick<NodeRecord, 'addr' | 'clientURL'>): string {
  const clientPort = Number(/:(\d+)\/?$/.exec(node.clientURL)?.[1] ?? 2379);
  return `${node.addr}:${clientPort - 1}`;
}

/** The mesh port a node serves given its cluster endpoint's port. */
export const meshPortOf = (clusterPort: number): number => clusterPort + 1;

/**
 * The published ports of every service (ingress, TCP or UDP) and their backends: tasks desired and reported
 * running on a node whose alive key is present, ordered by task id (every node round-robins over the same order).
 */
export function meshPlan(services: ServiceRecord[], tasks: TaskRecord[], nodes: NodeRecord[], alive: Set<string>): MeshPlan {
  const byNode = new Map(nodes.map((n) => [n.id, n]));
  const out: MeshPlan = new Map();
  for (const s of services) {
    const running = tasks
      .filter((t) => t.ServiceID === s.id && t.DesiredState === 'running' && t.Status.State === 'running' && t.NodeID && alive.has(t.NodeID) && byNode.has(t.NodeID))
      .sort((a, b) => a.ID.localeCompare(b.ID));
    for (const p of s.ports) {
      if (p.PublishMode !== 'ingress' || !p.PublishedPort || (p.Protocol !== 'tcp' && p.Protocol !== 'udp')) continue;
      out.set(meshKey(p.Protocol, p.PublishedPort), {
        proto: p.Protocol,
        port: p.PublishedPort,
        serviceId: s.id,
        backends: running.map((t) => ({ taskId: t.ID, nodeId: t.NodeID!, meshAddr: meshAddrOf(byNode.get(t.NodeID!)!), targetPort: p.TargetPort })),
      });
    }
  }
  return out;
}

/** Whether `plan` lets a mesh peer reach task `taskId` on `targetPort`/`proto` on this node (`nodeId`). */
export function allowsLocal(plan: MeshPlan, nodeId: string, proto: MeshProto, taskId: string, targetPort: number): boolean {
  for (const p of plan.values()) {
    if (p.proto !== proto) continue;
    if (p.backends.some((b) => b.taskId === taskId && b.nodeId === nodeId && b.targetPort === targetPort)) return true;
  }
  return false;
}

/** The first line of a connection (or datagram) to a mesh port: which local task, which target port. */
export const MESH_HELLO = 'BERTH-MESH1';

export function helloLine(taskId: string, targetPort: number): string {
  return `${MESH_HELLO} ${taskId} ${targetPort}\n`;
}

/** Parses a hello line (without its newline); undefined when it is not one. */
export function parseHello(line: string): { taskId: string; targetPort: number } | undefined {
  const m = /^BERTH-MESH1 ([a-z0-9]{1,64}) (\d{1,5})$/.exec(line);
  if (!m) return undefined;
  const targetPort = Number(m[2]);
  if (targetPort < 1 || targetPort > 65535) return undefined;
  return { taskId: m[1], targetPort };
}
