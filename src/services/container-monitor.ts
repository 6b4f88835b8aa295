// A container's runs as they end: the exit watcher (containerd's exit events, and its task list after each new event
// subscription for the exits the stream missed) that records each exit once and publishes die exactly once, restart policies with their back-off, OOM reports, and the
// reconciliation with what containerd kept while berth was down.
import type { Containerd } from '../containerd/client';
import * as fs from 'node:fs';
import * as taskApi from '../containerd/tasks';
import * as containerApi from '../containerd/containers';
import * as snapshotApi from '../containerd/snapshots';
import { backoffMs } from '../containerd/backoff';
import type { Logger } from '../log';
import { InFlight } from '../runtime/inflight';
import { ContainerIO } from '../runtime/io';
import { now } from '../runtime/clock';
import type { ContainerStore } from '../store/containers';
import { fromProtoTime, rfc3339Nano } from '../translate/time';
import type { ContainerRecord } from '../types/container';
import type { ContainerNetworking } from './container-network';
import type { ContainerLive } from './container-live';
import { SNAPSHOTTER } from './images';
import { deleteNetns } from '../network/sandbox';
import { reapOrphanShims } from '../containerd/orphan-shims';

/** When shims containerd let go of are looked for again after a start (containerd gives a cancelled Create's shim
 * 5 s to delete its task, then cleans up after it; on a loaded machine that takes a few seconds more). */
const SHIM_SWEEPS_MS = [15_000, 60_000];

export interface ContainerMonitorDeps {
  ctr: Containerd;
  store: ContainerStore;
  logger: Logger;
  networking: ContainerNetworking;
  live: ContainerLive;
  publish: (rec: ContainerRecord, action: string, extra?: Record<string, string>) => void;
  /** Starts a container (the container service's start), for restart policies. */
  start: (id: string, opts?: { byPolicy?: boolean }) => Promise<void>;
  /** Unmounts a container's plugin volumes (after its exit; for one found stopped at reconcile). */
  unmountVolumes: (rec: ContainerRecord) => Promise<void>;
  /** The events that close a run (after die and the network teardown): predefined networks left, volumes unmounted. */
  runEnded: (rec: ContainerRecord) => void;
}

/** Exits kept per container for runs not watched yet (Live.pendingExits): the newest. */
const PENDING_EXITS_KEPT = 4;

/** How long berth's start waits for the event subscription to be in effect before it reconciles anyway (ms). */
const FIRST_SUBSCRIPTION_WAIT_MS = 5000;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export class ContainerMonitor {
  private closed = false;
  /** Exits being recorded, their record writes and network teardowns, restarts by policy under way. */
  private readonly work = new InFlight();
  private readonly sweeps = new Set<NodeJS.Timeout>();
  private failureSweep?: NodeJS.Timeout;
  /**
   * berth's start: the first event subscription in effect, which the reconcile's task list waits for (an exit after
   * it reaches onTaskExit, one before it is in the list); until the list is asked, checkExits only resolves this.
   */
  private readonly firstInEffect = deferred();
  private reattachListed = false;
  /** The start-up's sweep of shims (reattach): restarts by policy wait for it. */
  private swept: Promise<void> = Promise.resolve();

  constructor(private readonly d: ContainerMonitorDeps) {}

  /**
   * Shutdown: no exit is recorded from here on (the next start's reconcile finds it in containerd) and no restart
   * begins; resolves once the exits and restarts already under way have written everything (or at `timeoutMs`:
   * false then). Before, a closed daemon could still write a network record of an exit it was finishing.
   */
  close(timeoutMs = 10_000): Promise<boolean> {
    this.closed = true;
    for (const t of this.sweeps) clearTimeout(t);
    this.sweeps.clear();
    clearTimeout(this.failureSweep);
    return this.work.drain(timeoutMs);
  }

  private get ctr(): Containerd {
    return this.d.ctr;
  }

  /**
   * Watches the run that just started (or that berth found running at its start) until its exit is reported, then
   * records it, publishes die once and cleans up the task. Exits are reported by containerd's one event subscription
   * (onTaskExit) and, for exits the subscription could not carry (it was down, or not yet in effect), by the task list
   * asked each time a new subscription is in effect (checkExits): containerd keeps a stopped task's status until berth
   * deletes it, which berth does only after recording the exit. No call is held per container (a pending Tasks.Wait
   * each was ~19 KB of berthd's memory per running container). An exit reported before this (the run's process
   * exited before its start had the pid in the record) was kept for the pid and is taken now.
   */
  watchExit(id: string): void {
    const live = this.d.live.liveOf(id);
    if (!live.exited) live.exited = new Promise((r) => (live.exitResolve = r));
    const pid = this.d.store.get(id)?.State.Pid ?? 0;
    live.watchedPid = pid; // from here (after `start` went out) the exit event records this run's exit
    const early = live.pendingExits?.find((e) => e.pid === pid);
    if (early) {
      live.pendingExits = undefined;
      void this.recordExit(id, early.status, rfc3339Nano(early.exitedAt), pid);
    }
  }

  /** A new run's task is being made: an exit kept from an earlier run is not its (pids are reused). */
  forgetExit(id: string): void {
    const live = this.d.live.get(id);
    if (live) live.pendingExits = undefined;
  }

  /**
   * A task's init process exited (containerd's /tasks/exit, or a stopped task in the list of checkExits). Recorded
   * when it is the watched run's; kept for its pid when the run is not watched yet (its start has not had the pid in
   * the record: watchExit takes it); ignored for a run already recorded and for tasks without a record.
   */
  onTaskExit(id: string, pid: number, status: number, exitedAt: { seconds: number; nanos: number }): void {
    const rec = this.d.store.get(id);
    if (!rec || !pid) return;
    const live = this.d.live.liveOf(id);
    if (live.recordedPid === pid) return;
    if (rec.State.Running && rec.State.Pid === pid && live.watchedPid === pid) {
      void this.recordExit(id, status, rfc3339Nano(exitedAt), pid);
      return;
    }
    const kept = (live.pendingExits ??= []);
    if (kept.some((e) => e.pid === pid)) return;
    kept.push({ pid, status, exitedAt });
    if (kept.length > PENDING_EXITS_KEPT) kept.shift();
  }

  /**
   * A new containerd event subscription is in effect (an event of its own came through it, EventBridge's probe):
   * every exit from here on reaches onTaskExit. Those before it that the subscription could not carry (it was down
   * or not yet in effect: containerd restarted, berth started) are in containerd's task list: a stopped task keeps
   * its pid and exit status until berth deletes it. A watched run whose task is gone from the list (containerd lost
   * it with its shim) ended with 255 at the time it was found, as a Wait answered NotFound did. Asked again (with a
   * back-off) while `current()` says the subscription is still the one in effect; a subscription that closed before
   * the answer leaves the list to the next one.
   */
  async checkExits(current: () => boolean = () => true): Promise<void> {
    if (!this.reattachListed) {
      // berth's start: the reconcile's own task list, asked after this, serves (it waits for this first)
      this.firstInEffect.resolve();
      return;
    }
    for (let attempt = 0; !this.closed && current(); attempt++) {
      // the runs watched when the list is asked: any other run's task may be made after it (not listed yet)
      const watched: [string, number][] = [];
      for (const rec of this.d.store.all()) {
        const live = this.d.live.get(rec.Id);
        if (rec.State.Running && live && live.watchedPid === rec.State.Pid && rec.State.Pid && live.recordedPid !== rec.State.Pid) watched.push([rec.Id, rec.State.Pid]);
      }
      let tasks: Awaited<ReturnType<typeof taskApi.list>>;
      try {
        tasks = await taskApi.list(this.ctr);
      } catch (err) {
        if (attempt === 0) this.d.logger.warn('cannot list tasks for the exits the event stream missed; asking again', { err: String(err) });
        await new Promise((r) => setTimeout(r, backoffMs(attempt + 1, 200, 5000)));
        continue;
      }
      if (this.closed) return;
      const listed = new Set<string>();
      for (const t of tasks) {
        listed.add(t.id);
        if (t.status === 'STOPPED' && t.pid) this.onTaskExit(t.id, t.pid, t.exit_status, fromProtoTime(t.exited_at));
      }
      for (const [id, pid] of watched) {
        if (listed.has(id)) continue;
        const rec = this.d.store.get(id);
        if (rec?.State.Running && rec.State.Pid === pid) {
          this.d.logger.warn('a running container has no task in containerd; its run ended', { id });
          void this.recordExit(id, 255, rfc3339Nano(now()), pid);
        }
      }
      return;
    }
  }

  /** Records one run's exit once, whichever source reports it first (not after close()). */
  private recordExit(id: string, status: number, finishedAt: string, pid = 0): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.work.add(this.recordExitNow(id, status, finishedAt, pid));
  }

  private async recordExitNow(id: string, status: number, finishedAt: string, pid: number): Promise<void> {
    const live = this.d.live.liveOf(id);
    const rec = this.d.store.get(id);
    if (pid && live.recordedPid === pid) return;
    // An earlier run's exit reported late is not this run's: a Wait asked for run 1 that containerd handled after the
    // next start had made its task (the same container id) returns when that run ends; recorded as run 1's it took
    // the record of run 3 for exited and removed run 3's FIFOs before its shim opened them. (The run's pid is in the
    // record before its exit can be reported: start sets it before watchExit.)
    if (pid && rec && rec.State.Pid !== pid) return;
    if (pid) live.recordedPid = pid;
    live.exiting = true;
    // Output first: the FIFOs reach EOF once the shim copied everything. (Usually they have by the time containerd
    // reports the exit: the capture thread sees the EOF first, and the die then goes out within this call.)
    const io = live.io;
    if (io && !io.outputEnded) await io.outputDone(2000);
    if (io) live.lastIO = io; // where the run's log files start (logical offsets), for reads after it
    live.io = undefined;
    // (after the die's writes where there is a record: nothing can run in between)
    const closeIO = () => {
      io?.close();
      io?.removeFifos();
    };
    if (!rec) closeIO();
    for (const l of live.endListeners) l();
    const resolve = live.exitResolve;
    live.exited = undefined;
    live.exitResolve = undefined;
    if (rec) {
      const ranFor = Date.parse(finishedAt) - Date.parse(rec.State.StartedAt);
      const restart = this.shouldRestart(rec, status);
      rec.State = { ...rec.State, Status: restart ? 'restarting' : 'exited', Running: false, Paused: false, Restarting: restart, Pid: 0, ExitCode: status, FinishedAt: finishedAt };
      // (counted when the restart is decided, as the engine counts it: inspect shows it while the restart waits)
      if (restart) rec.RestartCount++;
      // die is announced as soon as the exit is known; deleting the task and saving the record follow, and the
      // next start or a remove waits for them.
      this.d.publish(rec, 'die', { exitCode: String(status) });
      closeIO();
      // the task's deletion is asked first (the network's teardown execs its plugins after it went out)
      const taskRemoved = taskApi.remove(this.ctr, id).then(
        () => (live.noTask = true),
        () => undefined,
      );
      const t = this.teardownNetwork(rec); // clears the endpoints before the record is written below
      live.teardownRecorded = t.recorded;
      live.teardown = this.work.add(
        t.done.finally(() => {
          this.d.runEnded(rec);
          live.teardown = undefined;
          live.teardownRecorded = undefined;
        }),
      );
      live.exitCleanup = this.work.add(Promise.all([
        taskRemoved,
        // after the start's own write, so the exited state is the one that stays on disk
        (live.startSaved ?? Promise.resolve()).then(() => this.d.store.save(rec)).catch((err) => this.d.logger.error('cannot save state', { id, err: String(err) })),
      ])
        .then(() => this.d.unmountVolumes(rec))
        .then(() => {
          live.exitCleanup = undefined;
        }));
      if (restart) this.scheduleRestart(rec, ranFor);
    }
    live.exiting = false;
    if (!rec) await taskApi.remove(this.ctr, id).catch(() => undefined);
    resolve?.(status);
    this.endRestartWaits(id, status);
  }

  /** The kernel killed a container's process for memory: remembered for the exit, and reported. */
  onOOM(id: string): void {
    const rec = this.d.store.get(id);
    if (!rec) return;
    rec.State.OOMKilled = true;
    this.d.publish(rec, 'oom');
  }

  /**
   * The engine's restart policy decision after an exit (its restart manager's): nothing once the exit was asked for
   * (exitOnNext); `always` restarts even a container stopped by hand, `unless-stopped` not one stopped by hand
   * (HasBeenManuallyStopped, which every kill and stop sets), `on-failure` a non-zero exit while under its count.
   */
  private shouldRestart(rec: ContainerRecord, exitCode: number): boolean {
    const p = rec.HostConfig.RestartPolicy;
    if (!p || this.d.live.liveOf(rec.Id).exitOnNext) return false;
    switch (p.Name) {
      case 'always':
        return true;
      case 'unless-stopped':
        return !rec.HasBeenManuallyStopped;
      case 'on-failure':
        return exitCode !== 0 && (!p.MaximumRetryCount || rec.RestartCount < p.MaximumRetryCount);
      default:
        return false;
    }
  }

  /** The next exit of the container ends its run, whatever its restart policy (see Live.exitOnNext). */
  exitOnNext(rec: ContainerRecord): void {
    this.d.live.liveOf(rec.Id).exitOnNext = true;
  }

  private scheduleRestart(rec: ContainerRecord, ranForMs: number): void {
    const live = this.d.live.liveOf(rec.Id);
    // 100 ms, doubling; reset once the container had been running for 10 s.
    live.backoffMs = ranForMs >= 10_000 || !live.backoffMs ? 100 : Math.min(live.backoffMs * 2, 60_000);
    live.restartTimer = setTimeout(() => {
      live.restartTimer = undefined;
      const cur = this.d.store.get(rec.Id);
      if (this.closed || !cur || !cur.State.Restarting) return;
      live.starting = this.work.add(this.swept.then(() => this.d.start(cur.Id, { byPolicy: true })))
        .catch((err) => {
          this.d.logger.warn('restart failed', { id: cur.Id, err: String(err) });
          cur.State = { ...cur.State, Restarting: false, Status: 'exited' };
          void this.d.store.save(cur).catch(() => undefined);
          this.endRestartWaits(cur.Id, cur.State.ExitCode);
        })
        .finally(() => (live.starting = undefined));
    }, live.backoffMs);
  }

  cancelRestart(rec: ContainerRecord): boolean {
    const live = this.d.live.liveOf(rec.Id);
    if (!live.restartTimer) return false;
    clearTimeout(live.restartTimer);
    live.restartTimer = undefined;
    rec.State = { ...rec.State, Restarting: false, Status: 'exited' };
    this.endRestartWaits(rec.Id, rec.State.ExitCode);
    return true;
  }

  /** A restart is pending (the policy's timer runs): the engine counts the container as running, and restarting. */
  restartPending(rec: ContainerRecord): boolean {
    return rec.State.Restarting && !rec.State.Running && !!this.d.live.get(rec.Id)?.restartTimer;
  }

  /**
   * The engine's Wait on a restarting container: it returns when the next run exits (or the restarts end), with that
   * exit code; at once when no restart is pending any more.
   */
  untilRestartEnds(rec: ContainerRecord): Promise<number> {
    const live = this.d.live.liveOf(rec.Id);
    if (!rec.State.Restarting || rec.State.Running || (!live.restartTimer && !live.starting)) return this.waitExit(rec.Id).then((c) => c ?? rec.State.ExitCode);
    return new Promise((resolve) => (live.restartWaiters ??= new Set()).add(resolve));
  }

  private endRestartWaits(id: string, code: number): void {
    const live = this.d.live.get(id);
    const waiters = live?.restartWaiters;
    if (!waiters) return;
    live.restartWaiters = undefined;
    for (const w of waiters) w(code);
  }

  /**
   * Containers the engine starts again on its own start: those started before whose policy would restart their last
   * exit (shouldRestart, with no exit asked for yet in this berth): `always` even when stopped by hand,
   * `unless-stopped` unless stopped by hand, `on-failure` after a non-zero exit under its count.
   */
  async startWithPolicies(): Promise<void> {
    for (const rec of this.d.store.all()) {
      const live = this.d.live.liveOf(rec.Id);
      // Running ones, ones never started, and ones whose restart is already scheduled (reconcile saw them exit).
      if (rec.State.Running || !(Date.parse(rec.State.StartedAt) > 0) || live.restartTimer || live.starting) continue;
      if (rec.State.Status === 'removing' || rec.State.Dead) continue;
      if (this.shouldRestart(rec, rec.State.ExitCode)) {
        await this.d.start(rec.Id).catch((err) => this.d.logger.warn('cannot start container by its restart policy', { id: rec.Id, err: String(err) }));
      }
    }
  }

  /**
   * Kills the shims of berth's namespace that containerd has let go of (see containerd/orphan-shims), `afterMs`
   * from now; with `taskIds` (only while no task can be in creation), also those of no task containerd lists.
   */
  sweepShims(afterMs = 0, taskIds?: ReadonlySet<string>): Promise<void> | undefined {
    const sweep = async () => {
      if (this.closed) return;
      try {
        for (const s of await reapOrphanShims({ namespace: this.ctr.namespace, address: this.ctr.address, taskIds })) this.d.logger.info('killed a shim containerd had let go of', { id: s.id, pid: s.pid });
      } catch (err) {
        this.d.logger.warn('cannot look for shims containerd let go of', { err: String(err) });
      }
    };
    if (afterMs <= 0) return sweep();
    const t = setTimeout(() => {
      this.sweeps.delete(t);
      void sweep();
    }, afterMs);
    t.unref();
    this.sweeps.add(t);
  }

  /** After a start failed once its task's Create was asked: one sweep, 15 s after the last such failure. */
  sweepShimsAfterFailure(): void {
    clearTimeout(this.failureSweep);
    this.failureSweep = setTimeout(() => this.sweepShims(), SHIM_SWEEPS_MS[0]);
    this.failureSweep.unref();
  }

  /**
   * Re-attaches to what containerd kept while berth was down. The running tasks are watched from here; an exit
   * between this list and the event subscription's taking effect is in the task list checkExits asks then.
   */
  async reconcile(): Promise<void> {
    // (containerd that takes no probe is not waited for long: the list checkExits asks once a subscription is in
    // effect covers the exits between the two then)
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.firstInEffect.promise, new Promise<void>((r) => (timer = setTimeout(r, FIRST_SUBSCRIPTION_WAIT_MS)))]);
    clearTimeout(timer);
    await this.reattach();
  }

  private async reattach(): Promise<void> {
    // (containerd's list of containers, for the orphans at the end, is asked meanwhile: with 1,000 containers it is
    // the largest answer of the start-up)
    const labelled = containerApi.idsWithLabel(this.ctr, 'berth.name').then(
      (ids) => ({ ids }),
      (err: unknown) => ({ err }),
    );
    this.reattachListed = true; // from here, a new subscription in effect asks a list of its own
    const tasks = await taskApi.list(this.ctr);
    // A task Create cut short by berth's death leaves a shim containerd forgets (not listed, or soon not): nothing
    // of this berth creates tasks yet, so every shim of no listed task goes now, and those whose Create containerd
    // was still undoing go at the later sweeps. The sweep reads /proc while the containers are re-attached below;
    // a restart policy's start (which would make a shim of no listed task) waits for it (this.swept).
    const swept = this.sweepShims(0, new Set(tasks.map((t) => t.id))) ?? Promise.resolve();
    this.swept = swept;
    for (const ms of SHIM_SWEEPS_MS) this.sweepShims(ms);
    const taskById = new Map(tasks.map((t) => [t.id, t]));
    for (const rec of this.d.store.all()) {
      const t = taskById.get(rec.Id);
      if (!rec.State.Running) {
        // A task of a container recorded as not running is a start a kill cut short (made, maybe started, never
        // recorded): as the engine's restore without live-restore, what it did not know runs is killed.
        if (t) await this.killAndDelete(rec.Id, t.status);
        await this.d.unmountVolumes(rec); // mounted by a berth that was killed before it could unmount
        if (rec.Endpoints && !rec.State.Restarting) await this.teardownNetwork(rec).done.catch(() => undefined);
        // (a NetworkMode none sandbox named by a start that was cut short before its record)
        else if (rec.HostConfig.NetworkMode === 'none') await deleteNetns(rec.Id);
        continue;
      }
      if (t?.status === 'CREATED') {
        // A start cut short: its running state is written while containerd starts the task, and berth was killed
        // before the task started. The process never ran: it is killed, and the run ends as one killed would.
        await this.killAndDelete(rec.Id, t.status);
        await this.recordExit(rec.Id, 128 + 9, rfc3339Nano(now()));
        continue;
      }
      if (t && (t.status === 'RUNNING' || t.status === 'PAUSED')) {
        if (rec.IO) {
          const io = new ContainerIO(rec.IO, rec.LogPath || null, this.d.live.logOptionsOrNone(rec), this.d.live.capture);
          try {
            await io.openOutputs();
            io.stdinReady = true;
            this.d.live.wireIO(rec.Id, io);
          } catch (err) {
            this.d.logger.warn('cannot reopen container output', { id: rec.Id, err: String(err) });
          }
        }
        rec.State.Paused = t.status === 'PAUSED';
        rec.State.Status = rec.State.Paused ? 'paused' : 'running';
        this.watchExit(rec.Id);
      } else {
        const code = t ? t.exit_status : 255;
        const at = t ? rfc3339Nano(fromProtoTime(t.exited_at)) : rfc3339Nano(now());
        if (rec.IO && t) {
          const io = new ContainerIO(rec.IO, rec.LogPath || null, this.d.live.logOptionsOrNone(rec), this.d.live.capture);
          await io.openOutputs().then(() => this.d.live.wireIO(rec.Id, io)).catch(() => undefined);
        }
        await this.recordExit(rec.Id, code, at);
      }
    }
    await swept;
    // Tasks without a record are orphans of a failed create: remove them.
    const known = new Set(this.d.store.all().map((r) => r.Id));
    for (const t of tasks) {
      if (known.has(t.id) || t.id.startsWith('plugin-')) continue; // managed plugins' tasks are the plugin service's
      await this.killAndDelete(t.id, t.status);
    }
    const l = await labelled;
    if ('err' in l) throw l.err;
    await this.collectOrphans(known, l.ids);
  }

  /** Kills a task that is not stopped, waits for its exit (a running task cannot be deleted), deletes it. */
  private async killAndDelete(id: string, status: string): Promise<void> {
    if (status !== 'STOPPED') {
      const exited = taskApi.wait(this.ctr, id).catch(() => undefined);
      await taskApi.kill(this.ctr, id, 9, { all: true }).catch(() => undefined);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    }
    await taskApi.remove(this.ctr, id).catch((err) => this.d.logger.warn('cannot delete a task left by an interrupted start', { id, err: String(err) }));
  }

  /**
   * A create killed after its containerd container and before its record (SIGKILL at any moment) leaves a container
   * labelled berth.name, its snapshots (<id>, <id>-init, <id>-init-key) and a folder without a record: all removed,
   * so nothing berth does not list stays in its namespace. `labelled`: containerd's containers labelled berth.name
   * (asked before the tasks without a record were removed: their containers are among them).
   */
  private async collectOrphans(known: Set<string>, labelled: string[]): Promise<void> {
    const orphans = labelled.filter((id) => !known.has(id));
    for (const id of orphans) {
      for (const key of [id, `${id}-init`, `${id}-init-key`]) await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
      await deleteNetns(id);
      await containerApi.remove(this.ctr, id).catch((err) => this.d.logger.warn('cannot remove an orphaned container', { id, err: String(err) }));
      this.d.logger.info('removed a container left by an interrupted create', { id });
    }
    // A create killed before its container record leaves snapshots under its (expiring) lease and a folder.
    for (const id of this.d.store.strays()) {
      for (const key of [id, `${id}-init`, `${id}-init-key`]) await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
      await deleteNetns(id); // (made in the background by the create)
      await fs.promises.rm(this.d.store.dir(id), { recursive: true, force: true });
    }
  }

  /**
   * Unplugs the container's endpoints. The record is saved at once (remove waits only for that); the CNI DELs
   * run on, off the exit and remove paths, and the next start of the same container waits for them.
   */
  teardownNetwork(rec: ContainerRecord): { recorded: Promise<void>; done: Promise<void> } {
    const nets = this.d.networking.plugged(rec);
    const dels = this.d.networking.teardown(rec); // clears rec.Endpoints before its first await
    // (nothing plugged in, NetworkMode none's endpoint at most: nothing to wait for, the record every caller saves
    // afterwards anyway says it is gone)
    const recorded = nets.length ? this.d.store.save(rec).catch(() => undefined) : Promise.resolve();
    const done = Promise.all([dels, recorded]).then(async () => {
      if (nets.length) await this.d.networking.afterChange(rec, nets, false).catch(() => undefined);
    });
    return { recorded, done };
  }

  waitExit(id: string, timeoutMs?: number): Promise<number | undefined> {
    const live = this.d.live.liveOf(id);
    const rec = this.d.store.get(id);
    if (!live.exited || !rec?.State.Running) return Promise.resolve(rec?.State.ExitCode ?? 0);
    if (timeoutMs === undefined) return live.exited;
    return Promise.race([live.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), timeoutMs))]);
  }
}
