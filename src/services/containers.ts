// Docker container semantics over containerd: the operations — start/stop/kill/wait, pause, restart, top, resize,
// the list — composed with the parts in container-config (create, spec, update), container-monitor (exits, restart
// policies, reconcile), container-live (per-container I/O and logs), container-remove (removal), container-names
// (rename, link removal) and container-top (the ps table).
// State lives in containerd (container record, labels, snapshots, tasks) and in berth's store; a restarted berth
// reconciles the two (see ContainerMonitor.reconcile).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import * as taskApi from '../containerd/tasks';
import { isGrpcNotFound } from '../containerd/errors';
import { conflict, invalidParameter, isKind, notFound, notModified, restartingConflict, systemError, BerthError } from '../errors';
import type { Logger } from '../log';
import { ContainerIO, fifoPaths, OutputListener } from '../runtime/io';
import type { FifoMaker } from '../runtime/fifo';
import { now } from '../runtime/clock';
import { execDone } from '../runtime/exec-wait';
import type { ContainerStore } from '../store/containers';
import { createNetns, deleteNetns } from '../network/sandbox';
import { ContainerListQuery, filterContainers, matchAncestors } from '../translate/filters';
import type { CreateRequest } from '../translate/request/create';
import { containerAttributes } from '../translate/response/events';
import { rfc3339Nano } from '../translate/time';
import { startFailure } from '../translate/start-error';
import type { HostConfig, Ulimit } from '../types/config';
import type { ContainerRecord } from '../types/container';
import type { EventPublisher } from '../types/event';
import type { StdinFeed } from '../types/io';
import type { LogEntry, LogQuery, LogSink } from '../types/logs';
import { ContainerConfigurator, StartRefusal, UserLookupError, VolumeMountError } from './container-config';
import { ContainerLive } from './container-live';
import { ContainerMonitor } from './container-monitor';
import { ContainerNetworking, ownsNetns } from './container-network';
import { ContainerNames } from './container-names';
import { ContainerRemover } from './container-remove';
import { psTop, TopTable } from './container-top';
import type { ImageService } from './images';
import { SNAPSHOTTER } from './images';
import { parseSignal } from './signals';
import type { VolumeService } from './volumes';
import type { JsonFileLogOptions } from '../runtime/jsonfile';

export interface ContainerServiceDeps {
  ctr: Containerd;
  images: ImageService;
  store: ContainerStore;
  events: EventPublisher;
  logger: Logger;
  execRoot: string;
  /** containerd's state directory (where a task's root filesystem is mounted); undefined when unknown. */
  containerdState?: string;
  cgroupParent: string;
  /** exec-opts native.cgroupdriver=systemd: cgroupParent is a slice and runc's systemd manager places containers. */
  systemdCgroup?: boolean;
  volumes: VolumeService;
  networking: ContainerNetworking;
  /** Makes task FIFOs (a FifoPool's: no process spawned per start); mkfifo(1) when absent. */
  fifos?: FifoMaker;
  /** The daemon's log-driver and log-opts (daemon.json): the defaults of a create without HostConfig.LogConfig. */
  logDefaults?: { Type: string; Config: Record<string, string> };
  /** The daemon's default-ulimits: added at create to HostConfig.Ulimits for the names it does not give. */
  defaultUlimits?: Ulimit[];
}

export class ContainerService {
  private readonly live: ContainerLive;
  private readonly monitor: ContainerMonitor;
  private readonly config: ContainerConfigurator;
  private readonly remover: ContainerRemover;
  private readonly names: ContainerNames;
  /** Starts under way, by container id. */
  private readonly starts = new Map<string, Promise<void>>();

  constructor(private readonly d: ContainerServiceDeps) {
    const publish = (rec: ContainerRecord, action: string, extra?: Record<string, string>) => this.publish(rec, action, extra);
    this.live = new ContainerLive(d.store);
    this.config = new ContainerConfigurator(d, publish, (id) => this.snapshotMounts(id));
    this.monitor = new ContainerMonitor({
      ...d,
      live: this.live,
      publish,
      start: (id, opts) => this.start(id, opts),
      unmountVolumes: (rec) => this.config.unmountPluginVolumes(rec),
      runEnded: (rec) => this.runEvents(rec, 'end'),
    });
    this.remover = new ContainerRemover({ ...d, live: this.live, monitor: this.monitor, publish });
    this.names = new ContainerNames({ ...d, publish });
  }

  private get ctr(): Containerd {
    return this.d.ctr;
  }

  find(ref: string): ContainerRecord {
    return this.d.store.find(ref);
  }

  list(): ContainerRecord[] {
    return this.d.store.all();
  }

  /** GET /containers/json: the references a query names are looked up here, the filtering is translate's. */
  async listFiltered(q: ContainerListQuery): Promise<ContainerRecord[]> {
    // (a reference that names no container: the reference's words, 404 where it answers 500)
    const named = (ref: string) => {
      try {
        return this.find(ref);
      } catch (err) {
        throw isKind(err, 'NotFound') ? notFound(`no such container ${ref}`) : err;
      }
    };
    const since = q.since ? named(q.since) : undefined;
    const before = q.before ? named(q.before) : undefined;
    const list = filterContainers(this.list(), q, { since, before });
    const ancestors = q.filters.get('ancestor');
    if (!ancestors?.length) return list;
    const ids = new Set<string>();
    for (const a of ancestors) ids.add((await this.d.images.resolve(a).catch(() => undefined))?.id ?? a);
    return matchAncestors(list, ancestors, ids);
  }

  private publish(rec: ContainerRecord, action: string, extra: Record<string, string> = {}): void {
    this.d.events.publish('container', action, rec.Id, containerAttributes(rec, extra));
  }

  /** A client attached to the container's streams; one left with the detach keys. */
  attached(rec: ContainerRecord): void {
    this.publish(rec, 'attach');
  }

  detached(rec: ContainerRecord): void {
    this.publish(rec, 'detach');
  }

  async counts(): Promise<{ total: number; running: number; paused: number; stopped: number }> {
    const all = this.d.store.all();
    const paused = all.filter((c) => c.State.Paused).length;
    const running = all.filter((c) => c.State.Running && !c.State.Paused).length;
    return { total: all.length, running, paused, stopped: all.length - running - paused };
  }

  // ---- create ---------------------------------------------------------------------------------------------

  /** Plugs the container's networks into its named netns while its task is created. */
  private async setupNetwork(rec: ContainerRecord): Promise<void> {
    await this.d.networking.setup(rec);
    await this.d.networking.afterChange(rec);
  }

  /**
   * The network and volume events around a run, in the reference's order: at its start (after the joins of bridge
   * networks) the join of a predefined host or none network and the mounts of named volumes; at its end (after die
   * and the bridge networks' disconnects) the predefined network's disconnect and the unmounts.
   */
  private runEvents(rec: ContainerRecord, edge: 'start' | 'end'): void {
    this.d.networking.announcePredefined(rec, edge === 'start' ? 'connect' : 'disconnect');
    for (const m of rec.MountPoints ?? []) {
      if (m.Type !== 'volume' || !m.Name) continue;
      if (edge === 'start') this.d.volumes.mounted(m.Name, rec.Id, m.Destination, m.RW);
      else this.d.volumes.unmounted(m.Name, rec.Id);
    }
  }

  volumeUsers(name: string): string[] {
    return this.d.store.all().filter((c) => (c.MountPoints ?? []).some((m) => m.Name === name)).map((c) => c.Id);
  }

  // ---- start / exit -------------------------------------------------------------------------------------

  /**
   * One start at a time per container, as under the engine's container lock: a start asked while another is under
   * way waits for it, then answers as the container is by then (304 once it runs). Two at once deleted each other's
   * task (each start deletes the previous run's) and left containerd's shim folder behind: every later start failed.
   */
  /**
   * `byPolicy`: a restart by the container's policy, which counts in RestartCount; a start asked of the API (or by
   * berth's own start) resets the count, as the engine resets its restart manager.
   */
  async start(ref: string, opts: { byPolicy?: boolean } = {}): Promise<void> {
    const id = this.find(ref).Id;
    // Chained onto the start under way in the same tick: two starts waiting for a third both went on at once when
    // each only waited for the entry to go (and deleted each other's task again).
    const before = this.starts.get(id);
    const run = before ? before.catch(() => undefined).then(() => this.startOnce(this.find(id), opts)) : this.startOnce(this.find(id), opts);
    this.starts.set(id, run);
    try {
      await run;
    } finally {
      if (this.starts.get(id) === run) this.starts.delete(id);
    }
  }

  /** The run's process exited and its exit is being recorded (its output drained): the record still says running. */
  exiting(id: string): boolean {
    return !!this.live.get(id)?.exiting;
  }

  /** The container's rw snapshot's mounts (asked of containerd once: ContainerLive.snapshotMounts). */
  snapshotMounts(id: string): Promise<snapshotApi.SnapshotMount[]> {
    return this.live.snapshotMounts(id, () => snapshotApi.mounts(this.ctr, SNAPSHOTTER, id));
  }

  /** Resolves once the last run's clean-up (its task deleted, so its root filesystem unmounted) is done. */
  async exitSettled(id: string): Promise<void> {
    await this.live.get(id)?.exitCleanup;
  }

  private async startOnce(rec: ContainerRecord, opts: { byPolicy?: boolean }): Promise<void> {
    if (rec.State.Paused) throw conflict('cannot start a paused container, try unpause instead');
    // (a container whose restart is pending runs to the engine: 304, and the pending restart goes on)
    if (rec.State.Running || (!opts.byPolicy && this.monitor.restartPending(rec))) throw notModified();
    // (as the engine's RemovalInProgress, set before a forced remove's kill: a start between the kill and the
    // 'removing' record would begin a run the removal then takes apart under it)
    if (rec.State.Status === 'removing' || rec.State.Dead || this.remover.inProgress(rec.Id)) throw conflict(`container ${rec.Id} is marked for removal and cannot be started`);
    const live = this.live.liveOf(rec.Id);
    await live.exitCleanup;
    if (!live.noTask) await taskApi.remove(this.ctr, rec.Id);
    let logOptions: JsonFileLogOptions | undefined;
    try {
      logOptions = this.live.logOptions(rec);
    } catch (err) {
      // As the engine: the log options' values are checked when the logging driver starts, and the container
      // stays created with the message as its error.
      const msg = `failed to initialize logging driver: ${(err as Error).message}`;
      rec.State = { ...rec.State, Error: msg, ExitCode: 128 };
      await this.d.store.save(rec).catch(() => undefined);
      throw systemError(msg);
    }
    const fifoDir = path.join(this.d.execRoot, 'fifo', rec.Id);
    fs.mkdirSync(fifoDir, { recursive: true, mode: 0o700 }); // (at once: one mkdir, not a thread-pool round trip)
    const paths = fifoPaths(fifoDir, rec.Id, { tty: !!rec.Config.Tty, stdin: !!rec.Config.OpenStdin });
    const io = new ContainerIO(paths, rec.LogPath || null, logOptions, this.live.capture);
    await io.openOutputs(this.d.fifos);
    this.live.wireIO(rec.Id, io);
    if (live.teardown) await live.teardown;
    try {
      // The netns exists before runc creates the container; its interface is plugged in while runc works, and
      // both are done before the process starts.
      // (the netns the create began making, awaited first: made twice, the second `ip netns add` would fail)
      await live.netnsMade;
      live.netnsMade = undefined;
      if (ownsNetns(rec.HostConfig.NetworkMode)) await createNetns(rec.Id);
      await this.config.applyLinks(rec);
      await this.config.mountPluginVolumes(rec);
      const mounts = await this.snapshotMounts(rec.Id);
      live.noTask = false;
      this.monitor.forgetExit(rec.Id);
      // (the task's create is asked first: the network's plugins start after it went out)
      // (the binds' propagation is checked beside the network's set-up, as the engine checks it making the runtime
      // spec once the network is up: a refused start connects and disconnects the network)
      const task = this.config.applyUser(rec, mounts).then(async () => {
        this.config.checkBindPropagation(rec);
        await this.config.specAtStart(rec);
        return taskApi.create(this.ctr, rec.Id, mounts, paths);
      });
      const net = this.setupNetwork(rec);
      const settled = await Promise.allSettled([net, task]);
      const failed = settled.find((x) => x.status === 'rejected') as PromiseRejectedResult | undefined;
      if (failed) throw failed.reason;
      io.stdinReady = true;
      live.exited = new Promise((r) => (live.exitResolve = r));
      // The running state is written while containerd starts the task (the write is no longer a step of its own on
      // every start's path): the answer waits for both. The record says running only from here; a start that fails
      // writes its error after it (the store keeps the order), and a berth killed before the task started finds it
      // created and kills it at its next start (ContainerMonitor.reconcile).
      // The pid is the one Tasks.Create gave: runc's shims (v2 and the v1 runtime) answer Start with the pid of the
      // process their Create made (runc create makes it, runc start only lets it exec), so it is final here.
      const created = (settled[1] as PromiseFulfilledResult<number>).value;
      const state: ContainerRecord['State'] = { ...rec.State, Status: 'running', Running: true, Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: created, ExitCode: 0, Error: '', StartedAt: rfc3339Nano(now()), FinishedAt: rec.State.FinishedAt };
      const restartCount = opts.byPolicy ? rec.RestartCount : 0;
      if (!opts.byPolicy) {
        // (a new restart manager, as the engine's start makes one: the back-off begins again at 100 ms)
        live.exitOnNext = false;
        live.backoffMs = undefined;
      }
      const saved = this.d.store.save(rec, { ...rec, State: state, IO: paths, HasBeenManuallyStopped: false, RestartCount: restartCount }).catch((err) => {
        this.d.logger.error('cannot save state', { id: rec.Id, err: String(err) });
      });
      live.startSaved = saved;
      const pid = await taskApi.start(this.ctr, rec.Id);
      this.d.networking.nameSandbox(rec, pid);
      rec.State = state;
      rec.IO = paths;
      rec.HasBeenManuallyStopped = false;
      rec.RestartCount = restartCount;
      // start goes out and the run is watched before the record write is awaited: a process that exits at once is
      // seen exiting by the containerd event, after its start.
      this.runEvents(rec, 'start');
      this.publish(rec, 'start');
      this.monitor.watchExit(rec.Id);
      // (and the command exec'd: runtime/exec-wait; usually done by now, and awaited beside the record's fsync)
      await Promise.all([saved, execDone(created)]);
      live.startedAnswerAt = Date.now();
    } catch (err) {
      io.close();
      io.removeFifos();
      live.io = undefined;
      await taskApi.remove(this.ctr, rec.Id).catch(() => undefined);
      // (a Create containerd gave up on may leave its shim behind, let go of a few seconds later)
      this.monitor.sweepShimsAfterFailure();
      await this.monitor.teardownNetwork(rec).done;
      await this.config.unmountPluginVolumes(rec);
      if (err instanceof VolumeMountError || err instanceof UserLookupError || err instanceof StartRefusal) {
        // as the engine: the container stays created, with the mount's message as its error (a missing device is
        // the client's mistake: 400, where the engine answers 500)
        rec.State = { ...rec.State, Error: err.message, ExitCode: 128 };
        await this.d.store.save(rec).catch(() => undefined);
        for (const l of live.endListeners) l();
        throw err instanceof StartRefusal ? err.answer : systemError(err.message, err);
      }
      // As the engine: the runtime's message as it is, an exit code by what it says, no die event (the container
      // never ran), the container left created.
      const f = startFailure(rec.Path, err instanceof BerthError ? err.message : String(err));
      rec.State = { ...rec.State, Error: f.message, ExitCode: f.exitCode };
      await this.d.store.save(rec).catch(() => undefined);
      for (const l of live.endListeners) l();
      // a network gone since create: the reference's 404 (network X not found); a host port another container has
      if (isKind(err, 'NotFound') || (isKind(err, 'Conflict') && err.message.startsWith('driver failed programming external connectivity'))) throw err;
      throw f.invalid ? invalidParameter(f.message) : systemError(f.message, err);
    }
  }

  // ---- stop / kill / wait -------------------------------------------------------------------------------

  private async signal(rec: ContainerRecord, sig: number): Promise<void> {
    try {
      await taskApi.kill(this.ctr, rec.Id, sig);
    } catch (err) {
      if (isGrpcNotFound(err)) throw conflict(`Container ${rec.Id} is not running`);
      throw err;
    }
  }

  async stop(ref: string, timeoutSec?: number): Promise<void> {
    const rec = this.find(ref);
    const starting = this.live.liveOf(rec.Id).starting;
    if (!rec.State.Running && starting) {
      // A policy restart is under way: let it finish, then stop what it started.
      rec.HasBeenManuallyStopped = true;
      this.monitor.exitOnNext(rec);
      await starting;
    }
    if (!rec.State.Running) {
      if (this.monitor.cancelRestart(rec)) {
        rec.HasBeenManuallyStopped = true;
        await this.d.store.save(rec);
        this.publish(rec, 'stop');
        return;
      }
      throw notModified();
    }
    rec.HasBeenManuallyStopped = true;
    this.monitor.exitOnNext(rec);
    const t = timeoutSec ?? 10;
    const sig = parseSignal(rec.Config.StopSignal || 'SIGTERM');
    if (rec.State.Paused) await taskApi.resume(this.ctr, rec.Id).catch(() => undefined);
    this.publish(rec, 'kill', { signal: String(sig) });
    await this.signal(rec, sig).catch(() => undefined);
    // (the kill and the die go to subscribers as they happen, before the answer: the engine's)
    this.d.events.sendHeld?.();
    if ((await this.monitor.waitExit(rec.Id, t < 0 ? undefined : t * 1000)) === undefined) {
      this.publish(rec, 'kill', { signal: '9' });
      await taskApi.kill(this.ctr, rec.Id, 9, { all: true }).catch(() => undefined);
      this.d.events.sendHeld?.();
      await this.monitor.waitExit(rec.Id);
    }
    // As the reference: stop comes after the run's network disconnects.
    await this.live.liveOf(rec.Id).teardown?.catch(() => undefined);
    this.publish(rec, 'stop');
  }

  /** `stoppedIsDone`: a container that is not running counts as killed (the engine's answer to old clients). */
  /**
   * As the engine's kill (20.10): any signal marks the container stopped by hand; a SIGKILL, or the container's stop
   * signal (any signal when it has none), also ends its restarts and resumes it when paused (the signal is delivered
   * on resume: a paused container is not refused). Errors are prefixed "Cannot kill container: REF: ".
   */
  async kill(ref: string, signal?: string, opts: { stoppedIsDone?: boolean } = {}): Promise<void> {
    // (the signal is read before the container is looked up, as the engine's router does)
    const sig = parseSignal(signal);
    try {
      await this.killOnce(this.find(ref), sig);
    } catch (err) {
      if (opts.stoppedIsDone && isKind(err, 'Conflict')) return;
      if (err instanceof BerthError) throw new BerthError(err.kind, `Cannot kill container: ${ref}: ${err.message}`, err.cause);
      throw err;
    }
  }

  private async killOnce(rec: ContainerRecord, sig: number): Promise<void> {
    // (a restart by the policy under way is let finish: the kill is then the new run's, as under the engine's lock)
    if (!rec.State.Running) await this.live.get(rec.Id)?.starting;
    const restarting = this.monitor.restartPending(rec);
    if (!rec.State.Running && !restarting) throw conflict(`Container ${rec.Id} is not running`);
    let ends = sig === 9 || !rec.Config.StopSignal;
    if (!ends) {
      try {
        ends = parseSignal(rec.Config.StopSignal) === sig;
      } catch {
        ends = false;
      }
    }
    if (restarting) {
      // As the engine's kill of a restarting container: no signal is sent and no kill event published; the restarts
      // end (the container exited, with the last run's exit code) when the signal would have ended the run.
      rec.HasBeenManuallyStopped = true;
      if (ends) this.monitor.cancelRestart(rec);
      await this.d.store.save(rec);
      return;
    }
    const unpause = ends && rec.State.Paused;
    if (ends) this.monitor.exitOnNext(rec);
    rec.HasBeenManuallyStopped = true;
    this.publish(rec, 'kill', { signal: String(sig) });
    if (sig === 9) await taskApi.kill(this.ctr, rec.Id, 9, { all: true });
    else await this.signal(rec, sig);
    if (unpause) {
      // (the signal is delivered once the container runs again)
      try {
        await taskApi.resume(this.ctr, rec.Id);
        if (rec.State.Running && rec.State.Paused) {
          rec.State = { ...rec.State, Paused: false, Status: 'running' };
          await this.d.store.save(rec);
          this.publish(rec, 'unpause');
        }
      } catch (err) {
        this.d.logger.warn('cannot unpause a killed container', { id: rec.Id, err: String(err) });
      }
    }
    if (sig === 9) {
      // (the kill and the die go to subscribers before the answer, which waits for the exit: the engine's)
      this.d.events.sendHeld?.();
      await this.monitor.waitExit(rec.Id);
    }
  }

  async wait(ref: string): Promise<number> {
    const rec = this.find(ref);
    // (a restarting container runs to the engine: its wait ends with the next run, or when the restarts end)
    if (rec.State.Restarting && !rec.State.Running) return this.monitor.untilRestartEnds(rec);
    return (await this.monitor.waitExit(rec.Id)) ?? rec.State.ExitCode;
  }

  async restart(ref: string, timeoutSec?: number): Promise<void> {
    const rec = this.find(ref);
    if (rec.State.Running) await this.stop(rec.Id, timeoutSec).catch((e) => { if (!(e instanceof BerthError && e.kind === 'NotModified')) throw e; });
    this.monitor.cancelRestart(rec);
    await this.start(rec.Id);
    rec.HasBeenManuallyStopped = false;
    this.publish(rec, 'restart');
  }

  async pause(ref: string): Promise<void> {
    const rec = this.find(ref);
    if (rec.State.Restarting && !rec.State.Running) throw restartingConflict(rec.Id);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    if (rec.State.Paused) throw conflict(`Container ${rec.Id} is already paused`);
    await taskApi.pause(this.ctr, rec.Id);
    rec.State = { ...rec.State, Paused: true, Status: 'paused' };
    await this.d.store.save(rec);
    this.publish(rec, 'pause');
  }

  async unpause(ref: string): Promise<void> {
    const rec = this.find(ref);
    if (!rec.State.Paused) throw conflict(`Container ${rec.Id} is not paused`);
    await taskApi.resume(this.ctr, rec.Id);
    rec.State = { ...rec.State, Paused: false, Status: 'running' };
    await this.d.store.save(rec);
    this.publish(rec, 'unpause');
  }

  removeLink(ref: string): Promise<void> {
    return this.names.removeLink(ref);
  }

  rename(ref: string, newName: string): Promise<void> {
    return this.names.rename(this.find(ref), newName);
  }

  /** A remove asked while a start is under way waits for it (as under the engine's container lock), then goes on. */
  async remove(ref: string, opts: { force: boolean; volumes: boolean }): Promise<void> {
    let rec = this.find(ref);
    if (this.starts.has(rec.Id)) {
      await this.startsSettled(rec.Id);
      rec = this.find(rec.Id);
    }
    return this.remover.remove(rec, ref, opts);
  }

  /** Resolves once no start of the container is under way. */
  private async startsSettled(id: string): Promise<void> {
    for (let p = this.starts.get(id); p; p = this.starts.get(id)) await p.catch(() => undefined);
  }

  async top(ref: string, psArgs = '-ef'): Promise<TopTable> {
    const rec = this.find(ref);
    if (rec.State.Restarting && !rec.State.Running) throw restartingConflict(rec.Id);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    const table = await psTop(psArgs, new Set(await taskApi.pids(this.ctr, rec.Id)));
    this.publish(rec, 'top');
    return table;
  }

  /** Called with the id of every removed container (exec records, volumes...). */
  onRemove(fn: (id: string) => void): void {
    this.remover.onRemove(fn);
  }

  async closeStdin(id: string): Promise<void> {
    const io = this.live.get(id)?.io;
    // Only after the bytes still buffered in the writer reached the FIFO: closing the shim's side first loses them.
    await io?.closeStdinWriter();
    await taskApi.closeStdin(this.ctr, id).catch(() => undefined);
  }

  async resize(ref: string, h: number, w: number): Promise<void> {
    const rec = this.find(ref);
    // (the engine, counting a restarting container as running, asks containerd, which has no process: its 404)
    if (rec.State.Restarting && !rec.State.Running) throw notFound('no such container');
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    await taskApi.resizePty(this.ctr, rec.Id, w, h).catch((err) => {
      throw systemError(`Cannot resize container ${rec.Id}: ${(err as Error).message}`, err);
    });
    this.publish(rec, 'resize', { height: String(h), width: String(w) });
  }

  // ---- the parts' entry points: create and configuration, the exit monitor, live I/O ------------------------

  async create(req: CreateRequest, name: string | undefined): Promise<{ id: string; warnings: string[] }> {
    const { id, warnings, mounts, netns } = await this.config.create(req, name);
    const live = this.live.liveOf(id);
    live.rootMounts = Promise.resolve(mounts);
    live.noTask = true;
    live.netnsMade = netns;
    return { id, warnings };
  }
  async replaceHostConfig(ref: string, given: HostConfig): Promise<void> {
    const before = this.find(ref).HostConfig.NetworkMode;
    await this.config.replaceHostConfig(ref, given);
    // The netns the create made ahead for a network, when the mode is now one without (host, none, container:), goes
    // now: a none container's sandbox is named at its start (ContainerNetworking.nameSandbox).
    const rec = this.find(ref);
    if (!ownsNetns(before) || ownsNetns(rec.HostConfig.NetworkMode)) return;
    const live = this.live.liveOf(rec.Id);
    await live.netnsMade;
    live.netnsMade = undefined;
    await deleteNetns(rec.Id);
  }
  sizes(rec: ContainerRecord): Promise<{ sizeRw: number; sizeRootFs: number }> { return this.config.sizes(rec); }
  graphDriverData(rec: ContainerRecord): Promise<Record<string, string> | null> { return this.config.graphDriverData(rec); }
  update(ref: string, u: HostConfig): Promise<string[]> { return this.config.update(ref, u); }
  onTaskExit(id: string, pid: number, status: number, exitedAt: { seconds: number; nanos: number }): void { this.monitor.onTaskExit(id, pid, status, exitedAt); }
  /** A new containerd event subscription is in effect: the exits it could not carry are looked for (ContainerMonitor.checkExits). */
  checkExits(current?: () => boolean): Promise<void> { return this.monitor.checkExits(current); }
  onOOM(id: string): void { this.monitor.onOOM(id); }
  /**
   * What containerd kept while berth was down; then, as the engine's restore does, a removal a SIGKILL interrupted
   * (a record left 'removing') is finished.
   */
  async reconcile(): Promise<void> {
    await this.monitor.reconcile();
    await this.remover.finishInterrupted();
  }
  startWithPolicies(): Promise<void> { return this.monitor.startWithPolicies(); }
  subscribeOutput(id: string, fn: OutputListener, onEnd: () => void): () => void { return this.live.subscribeOutput(id, fn, onEnd); }
  logEntries(id: string, streams: { stdout: boolean; stderr: boolean }, emit: (e: LogEntry) => void): Promise<void> { return this.live.logEntries(id, streams, emit); }
  streamLogs(ref: string, q: LogQuery, sink: LogSink): Promise<void> { return this.live.streamLogs(this.find(ref), q, sink); }
  stdinFeed(id: string): StdinFeed { return this.live.stdinFeed(id, (i) => this.closeStdin(i)); }
  writeStdin(id: string, chunk: Buffer): void { this.live.stdinOf(id)?.stdin()?.write(chunk); }

  /** Closes berth's ends of every container's I/O (shutdown); containers keep running. */
  /**
   * Shutdown: no restart by policy begins and no exit is recorded from here on; the exits, record writes and
   * restarts under way are awaited (up to `timeoutMs`), then the containers' I/O is let go. Whether all settled.
   */
  async close(timeoutMs = 10_000): Promise<boolean> {
    for (const l of this.live.values()) if (l.restartTimer) clearTimeout(l.restartTimer);
    const settled = await this.monitor.close(timeoutMs);
    this.live.logReader.close();
    for (const l of this.live.values()) l.io?.close();
    this.live.capture.close();
    return settled;
  }
}
