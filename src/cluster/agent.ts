// The node agent (docs/services.md, "Node agent"): on every node of a swarm, the tasks assigned to it run as
// ordinary berth containers named and labelled as the engine's; it reports each task's status (accepted …
// running, then complete, failed or shutdown) into the task record with compare-and-swap, stops the containers of
// tasks the orchestrator shut down, and removes those whose task is gone. Everything is found again from etcd and
// the containers' labels, so a restarted berth carries on.
import { MAX_API_VERSION } from '../translate/version/features';
import { normaliseCreateBody } from '../translate/request/create';
import { taskContainerBody, taskName } from '../translate/request/service';
import { isKind } from '../errors';
import type { Logger } from '../log';
import type { ContainerRecord } from '../types/container';
import type { NodeRole, TaskRecord, TaskStatus } from '../types/swarm';
import type { ContainerService } from '../services/containers';
import { LoopWorker } from './orchestrator';
import { TERMINAL } from './plan';
import type { ClusterState } from './state';

const AGENT_MS = 500;
const TASK_LABEL = 'com.docker.swarm.task.id';
const NODE_LABEL = 'com.docker.swarm.node.id';

export interface AgentDeps {
  current: () => { state: ClusterState; nodeId: string; role: NodeRole } | undefined;
  containers: ContainerService;
  /** Configures a created task container on an overlay network at the task's address (docs/overlay.md). */
  attachNetwork?: (containerId: string, networkId: string, ip: string) => Promise<void>;
  /** Pulls an image this node lacks, with the service's X-Registry-Auth as sent (docs/services.md). */
  pull: (image: string, registryAuth: string | undefined) => Promise<void>;
  logger: Logger;
}

const nowISO = (): string => new Date().toISOString();

export class NodeAgent extends LoopWorker {
  /** Tasks with an operation under way (a start, a stop): a round leaves them alone. */
  private readonly busy = new Set<string>();

  constructor(private readonly d: AgentDeps) {
    super('agent', AGENT_MS, d.logger);
  }

  /** The node left its swarm: every task container goes (stopped and removed, as the engine's leave does). */
  async removeTaskContainers(): Promise<void> {
    const all = this.d.containers.list().filter((c) => (c.Config.Labels ?? {})[TASK_LABEL] !== undefined);
    await Promise.all(all.map((c) => this.d.containers.remove(c.Id, { force: true, volumes: false }).catch(() => undefined)));
  }

  /** This node's task containers, by task id. */
  private taskContainers(nodeId: string): Map<string, ContainerRecord> {
    const out = new Map<string, ContainerRecord>();
    for (const c of this.d.containers.list()) {
      const labels = c.Config.Labels ?? {};
      if (labels[TASK_LABEL] && labels[NODE_LABEL] === nodeId) out.set(labels[TASK_LABEL], c);
    }
    return out;
  }

  protected async round(): Promise<void> {
    const c = this.d.current();
    if (!c) return;
    const { state, nodeId } = c;
    const all = await state.tasks();
    const ctrs = this.taskContainers(nodeId);
    const known = new Set(all.map((t) => t.value.ID));
    for (const { value: t } of all) {
      if (t.NodeID !== nodeId || this.busy.has(t.ID)) continue;
      const ctr = ctrs.get(t.ID);
      const st = t.Status.State;
      if (t.DesiredState === 'shutdown') {
        if (TERMINAL.includes(st)) continue;
        this.run(t.ID, () => this.shutdown(state, t, ctr));
      } else if (st === 'running') {
        if (!ctr || !ctr.State.Running) this.run(t.ID, () => this.exited(state, t, ctr));
      } else if (['assigned', 'accepted', 'preparing', 'ready', 'starting'].includes(st)) {
        // (a berth killed half-way through a start finds the task here again and goes on)
        this.run(t.ID, () => this.startTask(state, nodeId, t, ctr));
      }
    }
    // containers of tasks that are gone (history trimmed, service removed, node removed)
    for (const [id, ctr] of ctrs) {
      if (known.has(id) || this.busy.has(id)) continue;
      this.run(id, () => this.d.containers.remove(ctr.Id, { force: true, volumes: false }));
    }
  }

  private run(id: string, op: () => Promise<unknown>): void {
    this.busy.add(id);
    op()
      .catch((err) => this.d.logger.warn('swarm task', { task: id, err: String(err) }))
      .finally(() => this.busy.delete(id));
  }

  /**
   * Writes a task's status (read again first; the orchestrator may have written the record since). Returns the
   * record as written, or undefined when the task is gone or was shut down meanwhile (`whileRunning`).
   */
  private async report(state: ClusterState, id: string, status: Omit<TaskStatus, 'Timestamp'>, whileRunning = false): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const cur = await state.task(id);
      if (!cur) return undefined;
      if (whileRunning && cur.value.DesiredState === 'shutdown') return undefined;
      const next: TaskRecord = { ...cur.value, UpdatedAt: nowISO(), Status: { Timestamp: nowISO(), ...status } };
      if (await state.putTask(next, cur.version)) return next;
    }
    throw new Error(`task ${id}: status not written (the record kept changing)`);
  }

  private async startTask(state: ClusterState, nodeId: string, t: TaskRecord, existing: ContainerRecord | undefined): Promise<void> {
    const id = t.ID;
    const order: [TaskStatus['State'], string][] = [
      ['accepted', 'accepted'],
      ['preparing', 'preparing'],
    ];
    const at = ['assigned', 'accepted', 'preparing', 'ready', 'starting'].indexOf(t.Status.State);
    for (const [state1, msg] of order.slice(Math.max(0, at))) if (!(await this.report(state, id, { State: state1, Message: msg }, true))) return;
    let ctr = existing;
    if (!ctr) {
      try {
        ctr = await this.createContainer(state, nodeId, t);
      } catch (err) {
        await this.report(state, id, { State: 'rejected', Message: 'preparing', Err: (err as Error).message });
        return;
      }
    }
    if (!(await this.report(state, id, { State: 'ready', Message: 'prepared' }, true))) return;
    if (!(await this.report(state, id, { State: 'starting', Message: 'starting' }, true))) return;
    if (!ctr.State.Running) {
      try {
        await this.d.containers.start(ctr.Id);
      } catch (err) {
        await this.report(state, id, { State: 'failed', Message: 'starting', Err: (err as Error).message, ContainerStatus: { ContainerID: ctr.Id, PID: 0, ExitCode: 128 } });
        return;
      }
    }
    const rec = this.d.containers.find(ctr.Id);
    if (!rec.State.Running) return this.exited(state, t, rec);
    await this.report(state, id, { State: 'running', Message: 'started', ContainerStatus: { ContainerID: rec.Id, PID: rec.State.Pid, ExitCode: 0 } });
  }

  /**
   * The task's container. An image this node lacks is pulled first, with the credentials kept with the service
   * (`--with-registry-auth`); a failed pull leaves the create's own answer ("No such image: …").
   */
  private async createContainer(state: ClusterState, nodeId: string, t: TaskRecord): Promise<ContainerRecord> {
    const create = async (): Promise<ContainerRecord> => {
      const req = normaliseCreateBody(taskContainerBody(t, nodeId), MAX_API_VERSION);
      const { id: cid } = await this.d.containers.create(req, taskName(t));
      // its addresses on the service's overlay networks (given by the leader), configured before it starts
      try {
        for (const a of t.networks ?? []) await this.d.attachNetwork?.(cid, a.networkId, a.addr.split('/')[0]);
      } catch (err) {
        await this.d.containers.remove(cid, { force: true, volumes: false }).catch(() => undefined);
        throw err;
      }
      return this.d.containers.find(cid);
    };
    try {
      return await create();
    } catch (err) {
      const image = t.Spec.ContainerSpec?.Image;
      if (!isKind(err, 'NotFound') || !image || !(err as Error).message.startsWith('No such image')) throw err;
      const svc = (await state.services()).find((s) => s.value.id === t.ServiceID);
      try {
        await this.d.pull(image, svc?.value.registryAuth);
      } catch (pullErr) {
        this.d.logger.warn('swarm task: pulling its image failed', { task: t.ID, image, err: String(pullErr) });
        throw err;
      }
      return create();
    }
  }

  /** A running task's container exited (or is gone). */
  private async exited(state: ClusterState, t: TaskRecord, ctr: ContainerRecord | undefined): Promise<void> {
    if (!ctr) {
      await this.report(state, t.ID, { State: 'failed', Message: 'started', Err: `task: container for task ${t.ID} not found` });
      return;
    }
    const code = ctr.State.ExitCode;
    const cs = { ContainerID: ctr.Id, PID: 0, ExitCode: code };
    if (code === 0) await this.report(state, t.ID, { State: 'complete', Message: 'finished', ContainerStatus: cs });
    else await this.report(state, t.ID, { State: 'failed', Message: 'started', Err: `task: non-zero exit (${code})`, ContainerStatus: cs });
  }

  /** The orchestrator shut the task down: its container is stopped (StopGracePeriod) and the task reported so. */
  private async shutdown(state: ClusterState, t: TaskRecord, ctr: ContainerRecord | undefined): Promise<void> {
    if (ctr?.State.Running) {
      const grace = t.Spec.ContainerSpec?.StopGracePeriod;
      await this.d.containers.stop(ctr.Id, grace ? Math.ceil(grace / 1e9) : 10).catch(() => undefined);
    }
    const rec = ctr ? this.d.containers.find(ctr.Id) : undefined;
    await this.report(state, t.ID, {
      State: 'shutdown',
      Message: 'shutdown',
      ...(rec ? { ContainerStatus: { ContainerID: rec.Id, PID: 0, ExitCode: rec.State.ExitCode } } : {}),
    });
  }
}
