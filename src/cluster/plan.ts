// The orchestrator's and the scheduler's decisions (docs/services.md), pure: from the services, tasks and nodes read
// from etcd and the time, the writes that bring the tasks to what the services ask. The leader applies them with
// compare-and-swap; a round whose reads were stale loses its writes and the next round decides again. Everything
// a decision needs is in the records (timestamps, reasons), so a new leader decides as the old one would have.
import { matchConstraints, parseConstraint } from '../translate/request/service';
import type { NodeRecord, ServiceRecord, TaskRecord, TaskState, Versioned } from '../types/swarm';

export interface PlanNode {
  rec: NodeRecord;
  /** Its alive key is there (new tasks may go to it). */
  ready: boolean;
  /**
   * Its alive key went missing less than a grace period ago: a heartbeat's gap is no failure, so its tasks stay and
   * new ones may still go to it (an etcd stalled past the lease's TTL under load makes every node's key lapse at
   * once; placing only on the nodes whose keys happened to be there piled the tasks onto one or two of them).
   */
  grace?: boolean;
}

export interface PlanInput {
  now: number;
  services: Versioned<ServiceRecord>[];
  tasks: Versioned<TaskRecord>[];
  nodes: PlanNode[];
  /** Orchestration.TaskHistoryRetentionLimit. */
  retention: number;
  newId: () => string;
}

export type Action =
  | { kind: 'create'; task: TaskRecord }
  | { kind: 'update'; version: number; task: TaskRecord }
  | { kind: 'delete'; version: number; id: string }
  | { kind: 'service'; version: number; service: ServiceRecord };

export const TERMINAL: TaskState[] = ['complete', 'shutdown', 'failed', 'rejected', 'remove', 'orphaned'];
const isTerminal = (t: TaskRecord): boolean => TERMINAL.includes(t.Status.State);
const isLive = (t: TaskRecord): boolean => t.DesiredState !== 'shutdown';

/** swarmkit's defaults: RestartPolicy any with a 5 s delay; updates one task at a time. */
export const DEFAULT_RESTART_DELAY_NS = 5e9;
const DEFAULT_PARALLELISM = 1;

const iso = (ms: number): string => new Date(ms).toISOString();
const nodesWord = (n: number): string => (n === 1 ? '1 node' : `${n} nodes`);

/** Why the orchestrator ended a task (kept in the record: the next round, or the next leader, reads it). */
type Reason = NonNullable<TaskRecord['endedBy']>;

class Round {
  readonly actions: Action[] = [];
  /** The tasks as this round leaves them (writes applied), by id. */
  private readonly current = new Map<string, { version: number; task: TaskRecord; created: boolean }>();
  private readonly nodes: Map<string, PlanNode>;

  constructor(readonly input: PlanInput) {
    for (const t of input.tasks) this.current.set(t.value.ID, { version: t.version, task: t.value, created: false });
    this.nodes = new Map(input.nodes.map((n) => [n.rec.id, n]));
  }

  tasks(): TaskRecord[] {
    return [...this.current.values()].map((c) => c.task);
  }

  node(id: string | undefined): PlanNode | undefined {
    return id ? this.nodes.get(id) : undefined;
  }

  /** A node a task can stay on: known, alive, not drained. */
  nodeHolds(id: string | undefined): boolean {
    const n = this.node(id);
    return !!n && (n.ready || !!n.grace) && n.rec.spec.Availability !== 'drain';
  }

  write(task: TaskRecord): void {
    const c = this.current.get(task.ID)!;
    c.task = { ...task, UpdatedAt: iso(this.input.now) };
  }

  create(task: TaskRecord): void {
    this.current.set(task.ID, { version: 0, task, created: true });
  }

  shutdown(t: TaskRecord, reason: Reason): void {
    const next: TaskRecord = { ...t, DesiredState: 'shutdown', endedBy: t.endedBy ?? reason };
    // a task no node holds yet ends here (no agent will report it)
    if (!t.NodeID && !isTerminal(t)) next.Status = { Timestamp: iso(this.input.now), State: 'shutdown', Message: 'shutdown' };
    this.write(next);
  }

  remove(t: TaskRecord): void {
    const c = this.current.get(t.ID)!;
    if (!c.created) this.actions.push({ kind: 'delete', version: c.version, id: t.ID });
    this.current.delete(t.ID);
  }

  /** The writes, in one list (deletes were pushed as they were decided). */
  finish(): Action[] {
    const orig = new Map(this.input.tasks.map((t) => [t.value.ID, t.value]));
    for (const c of this.current.values()) {
      if (c.created) this.actions.push({ kind: 'create', task: c.task });
      else if (orig.get(c.task.ID) !== c.task) this.actions.push({ kind: 'update', version: c.version, task: c.task });
    }
    return this.actions;
  }
}

function newTask(r: Round, s: ServiceRecord, slot: number | undefined, nodeId: string | undefined, cause?: 'restart'): TaskRecord {
  const now = iso(r.input.now);
  const t: TaskRecord = {
    ID: r.input.newId(),
    CreatedAt: now,
    UpdatedAt: now,
    Labels: {},
    Spec: s.spec.TaskTemplate,
    ServiceID: s.id,
    Status: { Timestamp: now, State: 'new', Message: 'created' },
    DesiredState: 'running',
    serviceName: s.spec.Name,
    specVersion: s.specVersion,
  };
  if (slot !== undefined) t.Slot = slot;
  if (nodeId) t.NodeID = nodeId;
  if (cause) t.cause = cause;
  return t;
}

/** The slot key of a task: its slot (replicated) or its node (global). */
const slotOf = (t: TaskRecord): string => (t.Slot !== undefined ? `s${t.Slot}` : `n${t.NodeID ?? ''}`);

/**
 * Whether a slot whose last task ended gets a new one now (`now`), later (`wait`) or not at all (`never`): the
 * RestartPolicy for a task that ended by itself, at once for one the orchestrator ended (node, drain, update).
 */
function restartDecision(r: Round, s: ServiceRecord, history: TaskRecord[]): 'now' | 'wait' | 'never' {
  const last = history[history.length - 1];
  if (!last) return 'now';
  // (a slot wanted again after a scale-down, a task moved off its node or updated: at once)
  if (last.endedBy && last.endedBy !== 'failed') return 'now';
  const p = s.spec.TaskTemplate.RestartPolicy ?? {};
  const cond = p.Condition ?? 'any';
  if (cond === 'none') return 'never';
  if (cond === 'on-failure' && last.Status.State === 'complete') return 'never';
  if (p.MaxAttempts) {
    const window = p.Window ? p.Window / 1e6 : Infinity;
    const restarts = history.filter((t) => t.cause === 'restart' && t.specVersion === s.specVersion && r.input.now - Date.parse(t.CreatedAt) <= window).length;
    if (restarts >= p.MaxAttempts) return 'never';
  }
  const delayMs = (p.Delay ?? DEFAULT_RESTART_DELAY_NS) / 1e6;
  return r.input.now - Date.parse(last.Status.Timestamp) >= delayMs ? 'now' : 'wait';
}

function orchestrate(r: Round, sv: Versioned<ServiceRecord>): void {
  const s = sv.value;
  const mine = (): TaskRecord[] => r.tasks().filter((t) => t.ServiceID === s.id);
  // Tasks that ended by themselves, or whose node is gone or drained, are shut down.
  for (const t of mine()) {
    if (!isLive(t)) continue;
    if (isTerminal(t)) r.shutdown(t, 'failed');
    else if (t.NodeID && !r.nodeHolds(t.NodeID)) r.shutdown(t, 'node');
  }
  const constraints = (s.spec.TaskTemplate.Placement?.Constraints ?? []).map(parseConstraint);
  const global = !!s.spec.Mode.Global;
  let wanted: { slot?: number; node?: string }[];
  if (global) {
    const eligible = [...r.input.nodes].filter((n) => (n.ready || n.grace) && n.rec.spec.Availability === 'active' && matchConstraints(constraints, n.rec));
    // a node that no longer meets the constraints, or is paused, loses its task
    for (const t of mine()) {
      const n = r.node(t.NodeID);
      if (isLive(t) && t.NodeID && (!n || n.rec.spec.Availability !== 'active' || !matchConstraints(constraints, n.rec))) r.shutdown(t, 'node');
    }
    wanted = eligible.map((n) => ({ node: n.rec.id }));
  } else {
    const replicas = s.spec.Mode.Replicated?.Replicas ?? 1;
    // scale down: the highest slots go
    for (const t of mine()) if (isLive(t) && (t.Slot ?? 0) > replicas) r.shutdown(t, 'scale');
    wanted = Array.from({ length: replicas }, (_, i) => ({ slot: i + 1 }));
  }
  // one live task per slot: the newest stays
  const bySlot = new Map<string, TaskRecord[]>();
  for (const t of mine()) bySlot.set(slotOf(t), [...(bySlot.get(slotOf(t)) ?? []), t]);
  for (const list of bySlot.values()) {
    list.sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
    const live = list.filter(isLive);
    for (const t of live.slice(0, -1)) r.shutdown(t, 'update');
  }
  rollingUpdate(r, sv, mine);
  for (const w of wanted) {
    const key = w.slot !== undefined ? `s${w.slot}` : `n${w.node}`;
    const history = mine()
      .filter((t) => slotOf(t) === key)
      .sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
    if (history.some(isLive)) continue;
    const d = restartDecision(r, s, history);
    if (d !== 'now') continue;
    r.create(newTask(r, s, w.slot, w.node, history.length ? 'restart' : undefined));
  }
}

/**
 * A rolling update: Parallelism tasks of an older spec at a time are shut down (the slot loop makes their
 * replacements); the next batch waits until the new tasks run and Delay has passed. A new task that fails pauses
 * the update (FailureAction pause, the default).
 */
function rollingUpdate(r: Round, sv: Versioned<ServiceRecord>, mine: () => TaskRecord[]): void {
  const s = sv.value;
  const st = s.updateStatus;
  if (!st || st.State !== 'updating') return;
  const started = Date.parse(st.StartedAt);
  const fresh = mine().filter((t) => t.specVersion === s.specVersion && Date.parse(t.CreatedAt) >= started);
  const cfg = s.spec.UpdateConfig;
  const failed = fresh.find((t) => (t.Status.State === 'failed' || t.Status.State === 'rejected') && t.endedBy !== 'node');
  if (failed && (cfg?.FailureAction ?? 'pause') === 'pause') {
    setUpdateStatus(r, sv, { ...st, State: 'paused', Message: `update paused due to failure or early termination of task ${failed.ID}` });
    return;
  }
  const outdated = mine()
    .filter((t) => isLive(t) && t.specVersion !== s.specVersion)
    .sort((a, b) => (a.Slot ?? 0) - (b.Slot ?? 0) || a.CreatedAt.localeCompare(b.CreatedAt));
  const inFlight = fresh.filter((t) => isLive(t) && t.Status.State !== 'running');
  if (outdated.length === 0) {
    if (inFlight.length === 0) setUpdateStatus(r, sv, { State: 'completed', StartedAt: st.StartedAt, CompletedAt: iso(r.input.now), Message: 'update completed' });
    return;
  }
  if (inFlight.length) return;
  const delayMs = (cfg?.Delay ?? 0) / 1e6;
  const lastUp = Math.max(0, ...fresh.filter((t) => t.Status.State === 'running').map((t) => Date.parse(t.Status.Timestamp)));
  if (lastUp && r.input.now - lastUp < delayMs) return;
  const parallelism = cfg ? cfg.Parallelism || outdated.length : DEFAULT_PARALLELISM;
  for (const t of outdated.slice(0, parallelism)) r.shutdown(t, 'update');
}

function setUpdateStatus(r: Round, sv: Versioned<ServiceRecord>, st: ServiceRecord['updateStatus']): void {
  r.actions.push({ kind: 'service', version: sv.version, service: { ...sv.value, updateStatus: st } });
}

/** A task ended and kept, or gone with its service: history beyond the retention limit goes (oldest first). */
function collect(r: Round, services: Set<string>): void {
  const byKey = new Map<string, TaskRecord[]>();
  for (const t of r.tasks()) {
    if (!services.has(t.ServiceID)) {
      if (isLive(t)) r.shutdown(t, 'removed');
      // deleted once stopped, or never placed, or its node is gone (its agent removes the container when it is back)
      if (isTerminal(t) || !r.nodeHolds(t.NodeID)) r.remove(t);
      continue;
    }
    const key = `${t.ServiceID}/${slotOf(t)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), t]);
  }
  const limit = Math.max(0, r.input.retention);
  for (const list of byKey.values()) {
    if (list.length <= limit) continue;
    const old = list.filter((t) => !isLive(t) && (isTerminal(t) || !r.nodeHolds(t.NodeID))).sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
    for (const t of old.slice(0, list.length - limit)) r.remove(t);
  }
}

/** The scheduler's answer for one task: a node, or the reference's explanation. */
export function chooseNode(t: TaskRecord, nodes: PlanNode[], live: TaskRecord[]): { node: string } | { err: string } {
  const constraints = (t.Spec.Placement?.Constraints ?? []).map(parseConstraint);
  const want = t.Spec.Resources?.Reservations ?? {};
  let notReady = 0;
  let noResources = 0;
  let noMatch = 0;
  const fits: PlanNode[] = [];
  for (const n of nodes) {
    if (!(n.ready || n.grace) || n.rec.spec.Availability !== 'active') {
      notReady++;
      continue;
    }
    const there = live.filter((x) => x.NodeID === n.rec.id);
    const usedMem = there.reduce((a, x) => a + (x.Spec.Resources?.Reservations?.MemoryBytes ?? 0), 0);
    const usedCpu = there.reduce((a, x) => a + (x.Spec.Resources?.Reservations?.NanoCPUs ?? 0), 0);
    if ((want.MemoryBytes ?? 0) + usedMem > n.rec.description.memoryBytes || (want.NanoCPUs ?? 0) + usedCpu > n.rec.description.nanoCPUs) {
      noResources++;
      continue;
    }
    if (!matchConstraints(constraints, n.rec)) {
      noMatch++;
      continue;
    }
    fits.push(n);
  }
  if (!fits.length) {
    if (!nodes.length) return { err: 'no suitable node (no nodes in the cluster)' };
    const why: string[] = [];
    if (notReady) why.push(`${nodesWord(notReady)} not available for new tasks`);
    if (noResources) why.push(`insufficient resources on ${nodesWord(noResources)}`);
    if (noMatch) why.push(`scheduling constraints not satisfied on ${nodesWord(noMatch)}`);
    return { err: `no suitable node (${why.join('; ')})` };
  }
  const count = (id: string, same: boolean): number => live.filter((x) => x.NodeID === id && (!same || x.ServiceID === t.ServiceID)).length;
  fits.sort((a, b) => count(a.rec.id, true) - count(b.rec.id, true) || count(a.rec.id, false) - count(b.rec.id, false) || a.rec.id.localeCompare(b.rec.id));
  return { node: fits[0].rec.id };
}

function schedule(r: Round): void {
  const now = iso(r.input.now);
  for (const t of r.tasks().sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt))) {
    if (!isLive(t) || !['new', 'pending'].includes(t.Status.State)) continue;
    const live = r.tasks().filter((x) => isLive(x) && x.NodeID && !['new', 'pending'].includes(x.Status.State));
    if (t.NodeID) {
      // a global task is made for its node
      r.write({ ...t, Status: { Timestamp: now, State: 'assigned', Message: 'scheduler assigned task to node' } });
      continue;
    }
    const c = chooseNode(t, r.input.nodes, live);
    if ('node' in c) r.write({ ...t, NodeID: c.node, Status: { Timestamp: now, State: 'assigned', Message: 'scheduler assigned task to node' } });
    else if (t.Status.State !== 'pending' || t.Status.Err !== c.err) r.write({ ...t, Status: { Timestamp: now, State: 'pending', Message: 'pending task scheduling', Err: c.err } });
  }
}

/** One round of the leader's work. */
export function plan(input: PlanInput): Action[] {
  const r = new Round(input);
  for (const s of input.services) orchestrate(r, s);
  collect(r, new Set(input.services.map((s) => s.value.id)));
  schedule(r);
  return r.finish();
}
