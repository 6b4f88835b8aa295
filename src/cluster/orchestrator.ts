// The leader's loop (docs/services.md, "Orchestrator"): every manager runs it, and a round does its work only when
// the part-1 election names this node leader. A round reads services, tasks, nodes and alive keys, asks plan.ts
// what to write, and writes it with compare-and-swap (a write that loses is decided again next round). Rounds run
// every ORCHESTRATE_MS and at once when a change is made through this node's API.
import type { Logger } from '../log';
import { DEFAULT_SWARM_SPEC, heartbeatPeriodMs } from '../translate/response/swarm';
import type { NodeRole } from '../types/swarm';
import { newId } from './ca';
import { readNetworks } from './networks';
import { attachNetworks, serviceNetworks } from './overlay-plan';
import { Action, plan } from './plan';
import type { ClusterState } from './state';

const ORCHESTRATE_MS = 500;

export interface OrchestratorDeps {
  current: () => { state: ClusterState; nodeId: string; role: NodeRole } | undefined;
  logger: Logger;
  /** Called after a round that wrote something (this node's agent looks at once instead of at its next tick). */
  wrote?: () => void;
}

/** Runs `round` every `periodMs` and on kick(), never two at once (a kick during a round runs one more after it). */
export class Loop {
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;

  constructor(
    private readonly round: () => Promise<void>,
    private readonly periodMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.kick(), this.periodMs);
    this.timer.unref();
  }

  kick(): void {
    if (!this.timer) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.round()
      .catch(this.onError)
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.kick());
        }
      });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** A worker whose `round` runs on a Loop every `periodMs` and on kick(); its errors are logged at debug. */
export abstract class LoopWorker {
  protected readonly loop: Loop;

  constructor(name: string, periodMs: number, logger: Logger) {
    this.loop = new Loop(() => this.round(), periodMs, (err) => logger.debug(`${name} round`, { err: String(err) }));
  }

  protected abstract round(): Promise<void>;

  start(): void {
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  close(): void {
    this.loop.stop();
  }
}

export class Orchestrator extends LoopWorker {
  /** When this leader first saw each node without its alive key. */
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly d: OrchestratorDeps) {
    super('orchestrator', ORCHESTRATE_MS, d.logger);
  }

  protected async round(): Promise<void> {
    const c = this.d.current();
    if (!c || c.role !== 'manager') return;
    const { state } = c;
    if ((await state.leader()) !== c.nodeId) return;
    const [services, tasks, nodes, alive, cluster] = await Promise.all([state.services(), state.tasks(), state.nodes(), state.alive(), state.cluster()]);
    const retention = cluster?.value.spec.Orchestration?.TaskHistoryRetentionLimit ?? DEFAULT_SWARM_SPEC.Orchestration!.TaskHistoryRetentionLimit!;
    const now = Date.now();
    // A node is down for its tasks once its alive key has been missing for a heartbeat period: the lease's lapse
    // already took one period (3 in all at most, as docs/swarm.md promises), and a heartbeat's momentary gap (a
    // restarted berth's new lease) moves nothing.
    const graceMs = heartbeatPeriodMs(cluster?.value.spec ?? {});
    for (const n of nodes) {
      if (alive.has(n.value.id)) this.missingSince.delete(n.value.id);
      else if (!this.missingSince.has(n.value.id)) this.missingSince.set(n.value.id, now);
    }
    const actions = plan({
      now,
      services,
      tasks,
      nodes: nodes.map((n) => ({ rec: n.value, ready: alive.has(n.value.id), grace: now - (this.missingSince.get(n.value.id) ?? now) < graceMs })),
      retention,
      newId,
    });
    // addresses on overlay networks for new tasks and VIPs (docs/overlay.md)
    const nets = services.some((s) => serviceNetworks(s.value.spec).length || s.value.virtualIPs?.length) ? await readNetworks(state) : [];
    const all = nets.length || services.some((s) => s.value.virtualIPs?.length) ? attachNetworks(actions, services, tasks, nets) : actions;
    await Promise.all(all.map((a) => this.apply(state, a)));
    if (all.length) this.d.wrote?.();
  }

  private async apply(state: ClusterState, a: Action): Promise<void> {
    if (a.kind === 'create') await state.putTask(a.task, 0);
    else if (a.kind === 'update') await state.putTask(a.task, a.version);
    else if (a.kind === 'delete') await state.deleteTask(a.id, a.version);
    else await state.updateService(a.service, a.service, a.version).catch(() => false);
  }
}
