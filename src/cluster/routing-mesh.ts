// The routing mesh's loop (docs/routing-mesh.md): on every node of a swarm, every MESH_MS (and at once after a
// change made through this node's API) it reads services, tasks, nodes and alive keys, asks routing-mesh-plan.ts
// which published ports to serve and where their tasks run, and applies that to the node's MeshProxy. Nothing is
// stored: a restarted berthd opens its ports again in its first round.
import type { Logger } from '../log';
import type { ContainerRecord } from '../types/container';
import type { NodeRole } from '../types/swarm';
import type { ContainerService } from '../services/containers';
import { LoopWorker } from './orchestrator';
import { allowsLocal, meshPlan, meshPortOf, type MeshPlan } from './routing-mesh-plan';
import { MeshProxy } from './routing-mesh-proxy';
import type { ClusterState } from './state';

const MESH_MS = 500;
const TASK_LABEL = 'com.docker.swarm.task.id';
const NODE_LABEL = 'com.docker.swarm.node.id';

export interface RoutingMeshDeps {
  current: () => { state: ClusterState; nodeId: string; role: NodeRole; advertiseAddr: string; listenAddr: string } | undefined;
  containers: ContainerService;
  logger: Logger;
}

/** A running container's IP: its bridge endpoint's, else its first endpoint's with an address. */
function containerIP(c: ContainerRecord): string | undefined {
  const eps = c.Endpoints ?? {};
  return eps.bridge?.ip || Object.values(eps).find((e) => e.ip)?.ip || undefined;
}

export class RoutingMesh extends LoopWorker {
  private proxy?: MeshProxy;
  /** node id, advertise IP and mesh port the proxy was made for. */
  private proxyKey = '';
  private plan: MeshPlan = new Map();
  /** This node's running task containers: task id → container IP (refreshed each round). */
  private local = new Map<string, string>();
  private meshPortWarned = false;

  constructor(private readonly d: RoutingMeshDeps) {
    super('routing mesh', MESH_MS, d.logger);
  }

  override start(): void {
    super.start();
    this.kick();
  }

  override close(): void {
    super.close();
    this.drop();
  }

  /** The ports this node serves now (`proto/port`). */
  openPorts(): string[] {
    return this.proxy?.openPorts() ?? [];
  }

  protected async round(): Promise<void> {
    const c = this.d.current();
    if (!c) {
      if (this.proxy) this.drop();
      return;
    }
    const meshPort = meshPortOf(Number(c.listenAddr.split(':').pop()));
    const key = `${c.nodeId} ${c.advertiseAddr}:${meshPort}`;
    if (key !== this.proxyKey) {
      this.drop();
      const nodeId = c.nodeId;
      this.proxy = new MeshProxy(c.advertiseAddr, {
        nodeId,
        localTarget: (taskId) => this.localTarget(nodeId, taskId),
        allows: (proto, taskId, targetPort) => allowsLocal(this.plan, nodeId, proto, taskId, targetPort),
        logger: this.d.logger,
      });
      this.proxyKey = key;
      this.meshPortWarned = false;
    }
    const proxy = this.proxy!;
    if (!proxy.meshPortOpen()) {
      await proxy.openMeshPort(meshPort).then(
        () => (this.meshPortWarned = false),
        (err) => {
          if (!this.meshPortWarned) this.d.logger.warn('routing mesh: cannot open the mesh port; trying again', { addr: `${c.advertiseAddr}:${meshPort}`, err: String(err) });
          this.meshPortWarned = true;
        },
      );
    }
    const [services, tasks, nodes, alive] = await Promise.all([c.state.services(), c.state.tasks(), c.state.nodes(), c.state.alive()]);
    this.local = this.runningTasks(c.nodeId);
    this.plan = meshPlan(
      services.map((s) => s.value),
      tasks.map((t) => t.value),
      nodes.map((n) => n.value),
      alive,
    );
    if (this.proxy === proxy) await proxy.apply(this.plan);
  }

  /** Closes the proxy of a swarm this node is no longer in (or was in under another id or address). */
  private drop(): void {
    this.proxy?.close();
    this.proxy = undefined;
    this.proxyKey = '';
    this.plan = new Map();
  }

  private runningTasks(nodeId: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const ctr of this.d.containers.list()) {
      const labels = ctr.Config.Labels ?? {};
      if (!labels[TASK_LABEL] || labels[NODE_LABEL] !== nodeId || !ctr.State.Running) continue;
      const ip = containerIP(ctr);
      if (ip) out.set(labels[TASK_LABEL], ip);
    }
    return out;
  }

  /** A local task's container IP (the round's map; a task not in it is looked for again: it may have just started). */
  private localTarget(nodeId: string, taskId: string): string | undefined {
    if (!this.local.has(taskId)) this.local = this.runningTasks(nodeId);
    return this.local.get(taskId);
  }
}
