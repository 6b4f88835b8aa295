// Per-container plumbing that outlives one task: output listeners, the current run's I/O and json-file log (and the
// last run's, for reads by logical offset after it ended), exit waiters, restart timers and the promises that order
// a start after the previous run's cleanup. Shared by the container service and its exit monitor.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { LogReaderThread, streamLogs } from './logs';
import { followLogs, LiveBatch } from './logs-follow';
import { LogCaptureThread } from './log-capture';
import { ContainerIO, OutputListener } from '../runtime/io';
import { LogSource, openLogFiles, readableRotated, sourceSize } from '../runtime/logfiles';
import { readLogs } from '../runtime/logread';
import { goJsonAttrs, logAttributes, parseJsonFileOptions } from '../translate/request/log-options';
import type { SnapshotMount } from '../containerd/snapshots';
import type { ContainerStore } from '../store/containers';
import type { ContainerRecord } from '../types/container';
import type { StdinFeed } from '../types/io';
import type { LogEntry, LogQuery, LogReadOptions, LogSink, LogStreamFormat } from '../types/logs';
import type { JsonFileLogOptions } from '../runtime/jsonfile';

/** Per-container live plumbing: output listeners that outlive one task, the current IO, exit waiters. */
export interface Live {
  listeners: Set<OutputListener>;
  endListeners: Set<() => void>;
  io?: ContainerIO;
  /** The last run's (closed) output: its log's rotation state, for reads by logical offset after the run ended. */
  lastIO?: ContainerIO;
  /** The current IO's forwarding of raw output to `listeners` (only while someone listens). */
  unwire?: () => void;
  exited?: Promise<number>;
  exitResolve?: (code: number) => void;
  /**
   * The next exit is not to be restarted, whatever the policy (the engine's ExitOnNext, which cancels its restart
   * manager): set by a stop, a SIGKILL, and a kill with the container's stop signal (any signal when it has none);
   * cleared by the next start asked of the API. Kept in memory only, as the engine's.
   */
  exitOnNext?: boolean;
  /** Restart-policy timer and its current delay. */
  restartTimer?: NodeJS.Timeout;
  /**
   * Waits asked while a restart was pending (the engine's Wait on a restarting container, which it counts as
   * running): told the exit code when the next run exits, or when the restarts end without one (a stop, a kill, a
   * failed start).
   */
  restartWaiters?: Set<(code: number) => void>;
  backoffMs?: number;
  /** Network teardown after an exit, awaited by the next start; remove awaits only its record write. */
  teardown?: Promise<void>;
  teardownRecorded?: Promise<void>;
  /** A restart-policy start in progress. */
  starting?: Promise<void>;
  /** Task deletion and the record write after an exit. */
  exitCleanup?: Promise<void>;
  /** The pid whose exit was recorded (the exit event and Wait both report it). */
  recordedPid?: number;
  /** The pid of the run being watched (set after its start event). */
  watchedPid?: number;
  /**
   * An exit containerd reported before its run was watched (a process that exits at once after Tasks.Start, before
   * the start has its pid in the record): taken by ContainerMonitor.watchExit for the same pid, forgotten when the
   * next run's task is made. By pid: a late report of an earlier run (a task list answered after that run was
   * recorded) does not push this run's out. A few at most per container.
   */
  pendingExits?: { pid: number; status: number; exitedAt: { seconds: number; nanos: number } }[];
  /**
   * The run's process has exited and its exit is being recorded (its output drained): the record still says
   * running, but nothing runs (see ContainerMonitor.recordExitNow; archive operations treat it as stopped).
   */
  exiting?: boolean;
  /** When the last start's answer was ready (Date.now()): a logs read just after it waits for the first output. */
  startedAnswerAt?: number;
  /** The record write of the last start. */
  startSaved?: Promise<void>;
  /** The rw snapshot's mounts (see ContainerLive.snapshotMounts), from the create or asked once. */
  rootMounts?: Promise<SnapshotMount[]>;
  /** The netns the create began making in the background (start and remove wait for it). */
  netnsMade?: Promise<unknown>;
  /** containerd holds no task for the container (just created, or its last task deleted): start and remove need not delete one. */
  noTask?: boolean;
}

/** How long after a start's answer a logs read waits for the run's first output (settleAfterStart). */
const SETTLE_MS = 100;
/** How long it waits at most while the run's process has not yet blocked or exited (a loaded host: settleAfterStart). */
const SETTLE_RUNNABLE_MS = 1000;

/**
 * Whether the process has not yet settled: runnable (it has not had the CPU to write or block yet) or gone (it
 * exited: its end, the exit's record, is coming). A process that sleeps, waits or is stopped has settled.
 */
function notSettled(pid: number | undefined): boolean {
  if (!pid) return false;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return true;
  }
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'R' || state === 'Z' || state === 'X';
}

export class ContainerLive {
  private readonly live = new Map<string, Live>();

  constructor(private readonly store: ContainerStore) {}

  get(id: string): Live | undefined {
    return this.live.get(id);
  }

  delete(id: string): void {
    this.live.delete(id);
  }

  /**
   * The container's rw snapshot's mounts: its layers and its own upper and work dirs are fixed from its create to its
   * removal (start, stop and commit leave them as they are), so containerd is asked once per container, not at every
   * inspect (300 inspects at once were 300 Snapshots.Mounts). Kept only while the container exists (a remove drops
   * its Live; a container without a record gets none) and only once answered (a failed ask is asked again).
   */
  snapshotMounts(id: string, ask: () => Promise<SnapshotMount[]>): Promise<SnapshotMount[]> {
    const live = this.live.get(id) ?? (this.store.get(id) ? this.liveOf(id) : undefined);
    if (!live) return ask();
    if (live.rootMounts) return live.rootMounts;
    const p = ask();
    live.rootMounts = p;
    p.catch(() => {
      if (live.rootMounts === p) live.rootMounts = undefined;
    });
    return p;
  }

  values(): IterableIterator<Live> {
    return this.live.values();
  }

  liveOf(id: string): Live {
    let l = this.live.get(id);
    if (!l) {
      l = { listeners: new Set(), endListeners: new Set() };
      this.live.set(id, l);
    }
    return l;
  }

  /** Captures logged containers' output on a thread of its own (see docs/logging.md). */
  readonly capture = new LogCaptureThread();

  wireIO(id: string, io: ContainerIO): void {
    const live = this.liveOf(id);
    live.io = io;
    live.unwire = undefined;
    this.forward(live);
  }

  /** The raw output goes to the listeners while there are any (the capture thread sends it only then). */
  private forward(live: Live): void {
    if (!live.io || live.unwire || !live.listeners.size) return;
    live.unwire = live.io.subscribe((stream, chunk) => {
      for (const l of live.listeners) l(stream, chunk);
    });
  }

  /** Output of the container's current and future tasks, until unsubscribed. */
  subscribeOutput(id: string, fn: OutputListener, onEnd: () => void): () => void {
    const live = this.liveOf(id);
    live.listeners.add(fn);
    live.endListeners.add(onEnd);
    this.forward(live);
    return () => {
      live.listeners.delete(fn);
      live.endListeners.delete(onEnd);
      if (!live.listeners.size) {
        live.unwire?.();
        live.unwire = undefined;
      }
    };
  }

  /** `fn` when the current run's output is complete, until unsubscribed. */
  onRunEnd(id: string, fn: () => void): () => void {
    const live = this.liveOf(id);
    live.endListeners.add(fn);
    return () => live.endListeners.delete(fn);
  }

  /** The json-file options of a container's log (rotation, the entries' attributes); throws the engine's message. */
  logOptions(rec: ContainerRecord): JsonFileLogOptions | undefined {
    if (!rec.LogPath) return undefined;
    const cfg = rec.HostConfig.LogConfig?.Config;
    const rotation = parseJsonFileOptions(cfg);
    const attrs = logAttributes(cfg, {
      id: rec.Id,
      name: rec.Name,
      imageId: rec.Image,
      imageName: rec.ImageName,
      path: rec.Path,
      args: rec.Args,
      env: rec.Config.Env ?? [],
      labels: rec.Config.Labels ?? {},
      logPath: rec.LogPath,
      hostname: os.hostname(),
    });
    // (a full disk: the capture thread's JsonFileLog drops entries whole; these options cross to that thread, so
    // they carry no callbacks)
    return { ...rotation, attrs: attrs && goJsonAttrs(attrs) };
  }

  /** As logOptions, for a log a run already writes (its options were checked when it started). */
  logOptionsOrNone(rec: ContainerRecord): JsonFileLogOptions | undefined {
    try {
      return this.logOptions(rec);
    } catch {
      return undefined;
    }
  }

  /**
   * The container's json-file log as of now: its files opened (the reader closes them, see LogSource), through
   * the capture when berth has one for it (it knows where each file starts), else as found on disk.
   */
  async openLog(id: string): Promise<LogSource> {
    const live = this.live.get(id);
    const src = await (live?.io ?? live?.lastIO)?.openLog();
    if (src) return src;
    const rec = this.store.get(id);
    if (!rec?.LogPath) return { files: [] };
    let rotated = 0;
    try {
      rotated = readableRotated(parseJsonFileOptions(rec.HostConfig.LogConfig?.Config));
    } catch {
      /* never started */
    }
    return openLogFiles(rec.LogPath, rotated);
  }

  /** The container's json-file log size while a run writes it; undefined otherwise. */
  logSizeOf(id: string): number | undefined {
    return this.live.get(id)?.io?.logSize();
  }

  /**
   * The live side of `logs -f`: what the container's json-file log receives from now on (`fn`), and the log's
   * logical size it starts at; `onEnd` when the run's output is complete. Undefined when the container has no live
   * log.
   */
  async subscribeLog(id: string, o: LogReadOptions, fmt: LogStreamFormat, onBatch: LiveBatch, onEnd: () => void): Promise<{ offset: number; unsubscribe: () => void } | undefined> {
    const live = this.live.get(id);
    const sub = await live?.io?.subscribeLog(o, fmt, onBatch);
    if (!live || !sub) return undefined;
    live.endListeners.add(onEnd);
    return {
      offset: sub.offset,
      unsubscribe: () => {
        sub.unsubscribe();
        live.endListeners.delete(onEnd);
      },
    };
  }

  stdinOf(id: string) {
    return this.live.get(id)?.io;
  }

  /** Decodes big and followed log reads on a thread of its own (see logs-worker). */
  readonly logReader = new LogReaderThread();

  /** The log's entries so far, decoded (attach's `logs`). */
  async logEntries(id: string, streams: { stdout: boolean; stderr: boolean }, emit: (e: LogEntry) => void): Promise<void> {
    // (docker-py's test_attach_no_stream: start, then attach with logs=1 and no stream at once)
    await this.settleAfterStart(id);
    return readLogs(await this.openLog(id), streams, emit);
  }

  /**
   * The logs endpoint's bytes. A running container is followed live once its file has been read (see logs-follow);
   * otherwise the file is read, and followed until the run ends. Big reads and follows are decoded on the log reader
   * thread, while the main thread keeps capturing output.
   */
  async streamLogs(rec: ContainerRecord, q: LogQuery, sink: LogSink): Promise<void> {
    const { read: o, format: fmt, follow } = q;
    const threaded = this.logReader.stream.bind(this.logReader);
    const live =
      follow && rec.State.Running
        ? followLogs(o, fmt, { size: () => this.logSizeOf(rec.Id), subscribe: (so, sfmt, onBatch, onEnd) => this.subscribeLog(rec.Id, so, sfmt, onBatch, onEnd), open: () => this.openLog(rec.Id) }, threaded, sink)
        : undefined;
    if (live) return live;
    if (!follow && rec.State.Running) await this.settleAfterStart(rec.Id);
    let stopResolve!: () => void;
    const stopped = new Promise<void>((r) => (stopResolve = r));
    let unsub: (() => void) | undefined;
    if (follow && rec.State.Running) unsub = this.onRunEnd(rec.Id, () => stopResolve());
    else stopResolve();
    const src = await this.openLog(rec.Id);
    const big = follow || sourceSize(src) > 4 << 20;
    await (big ? threaded : streamLogs)(
      src,
      o,
      fmt,
      async (b, release) => {
        if (!sink.write(b, release)) await sink.drained();
      },
      follow ? { stopped, signal: sink.signal } : undefined,
    );
    unsub?.();
  }

  /**
   * A read asked right after a start (docker-py's own tests start a container, then read its logs at once) waits,
   * until SETTLE_MS after the start's answer at most, for the run's first output or its end. The process, the shim's
   * copy and the capture may not have had a core yet when berth's start answered; the reference's start answers
   * later, and its clients were written against that. Nothing waits for a container started longer ago, or once it
   * wrote; one that writes nothing (a server, a sleep) costs such a read SETTLE_MS. On a loaded host the process may
   * not have had the CPU within SETTLE_MS (a short `echo` read back empty at load 12): past it, the read waits on
   * while the process is still runnable or has exited (its end is recorded once its output is drained), up to
   * SETTLE_RUNNABLE_MS.
   */
  private async settleAfterStart(id: string): Promise<void> {
    const live = this.live.get(id);
    if (live?.startedAnswerAt === undefined) return;
    const deadline = live.startedAnswerAt + SETTLE_MS;
    const cap = live.startedAnswerAt + SETTLE_RUNNABLE_MS;
    const pid = () => this.store.get(id)?.State.Pid;
    for (;;) {
      if (!live.io || live.io.wroteAny()) return;
      const now = Date.now();
      if (now >= cap || (now >= deadline && !notSettled(pid()))) return;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Bytes for stdin from an attached client, held until the run's stdin is open (retried every 20 ms), in order. */
  stdinFeed(id: string, closeStdin: (id: string) => Promise<void>): StdinFeed {
    const pending: Buffer[] = [];
    let flushing: NodeJS.Timeout | undefined;
    let canceled = false;
    const flush = () => {
      const w = this.stdinOf(id)?.stdin();
      if (!w) {
        flushing ??= setTimeout(() => {
          flushing = undefined;
          if (!canceled) flush();
        }, 20);
        return;
      }
      while (pending.length) w.write(pending.shift()!);
    };
    return {
      write: (chunk) => {
        pending.push(chunk);
        flush();
      },
      endAfterFlush: () => {
        const waitFlush = () => (pending.length && !canceled ? setTimeout(waitFlush, 20) : void closeStdin(id));
        waitFlush();
      },
      cancel: () => {
        canceled = true;
      },
    };
  }
}
