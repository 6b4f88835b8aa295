// Readings for GET /containers/(id)/stats (one, a pair for stream=0, or one a second while the container runs): the
// task's cgroup figures (read from its cgroup v1 files, in the shape of containerd's task metrics; containerd's
// Tasks.Metrics where they cannot be read so: a cgroup v2 host), the host's CPU time (/proc/stat, as the engine
// computes system_cpu_usage) and the network counters of the container's namespace (/proc/<pid>/net/dev). The files
// are read on the stats reader thread (stats-reader-worker), started on first use and ended after a quiet spell.
import type { Containerd } from '../containerd/client';
import * as taskApi from '../containerd/tasks';
import type { ContainerStore } from '../store/containers';
import type { StatsReading } from '../translate/response/stats';
import type { ContainerRecord } from '../types/container';
import { rfc3339Nano } from '../translate/time';
import { now } from '../runtime/clock';
import { CgroupV1Reader } from '../runtime/cgroup-metrics';
import { IdleWorker, workerFile } from '../runtime/idle-worker';
import { hostFigures, netCounters, readBatch, type ReadBatch, type ReadItem } from '../runtime/stats-files';
import type { FromStatsReader, ToStatsReader } from './stats-reader-worker';

/**
 * The stats reader thread: batches of readings go to it and come back, in order. Undefined for a batch it could not
 * read (the thread failed or its file is missing: the caller reads on the main thread).
 */
class StatsReaderThread {
  private seq = 0;
  private readonly pending = new Map<number, (b: ReadBatch | undefined) => void>();
  private readonly thread: IdleWorker<ToStatsReader, FromStatsReader>;

  constructor(idleMs = 10_000) {
    this.thread = new IdleWorker('stats reader thread', workerFile(__filename, 'stats-reader-worker.js'), idleMs, {
      message: (m) => {
        const done = this.pending.get(m.seq);
        this.pending.delete(m.seq);
        done?.(m.batch);
        this.thread.settled();
      },
      failed: () => {
        for (const done of this.pending.values()) done(undefined);
        this.pending.clear();
      },
      busy: () => this.pending.size > 0,
    });
  }

  read(items: ReadItem[]): Promise<ReadBatch | undefined> {
    const w = this.thread.get();
    if (!w) return Promise.resolve(undefined);
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      w.postMessage({ type: 'batch', seq, items } satisfies ToStatsReader);
    });
  }

  forget(id: string): void {
    this.thread.post({ type: 'forget', id });
  }
}

/** Readings asked for within WINDOW_MS of each other are read together: at most this many tasks per Tasks.Metrics call. */
const BATCH = 32;
/**
 * `docker stats` asks for every container at once, over as many connections, and their requests arrive over many
 * turns of the event loop: gathered only per turn they became Metrics calls of one or two tasks, twice as slow per
 * task as calls of 8-32 (containerd lists its tasks and filters them for each call; 200 tasks measured at load ~14:
 * 1.07 s in calls of one, 0.5 s in calls of 8 or 32).
 */
const WINDOW_MS = 5;

const EMPTY: StatsReading = { read: '0001-01-01T00:00:00Z', metrics: {}, systemCpuNs: 0, onlineCpus: 0, networks: {} };

interface Wanted {
  pid: number;
  cpuOnly: boolean;
  net: boolean;
  done: ((r: StatsReading | undefined) => void)[];
}

export class StatsService {
  /** Readings wanted in this window (`docker stats` asks for every container at once). */
  private wanted = new Map<string, Wanted>();
  private readonly thread = new StatsReaderThread();
  /** The main thread's own reader, where the reader thread cannot run. */
  private local?: CgroupV1Reader;

  constructor(
    private readonly ctr: Containerd,
    private readonly store: ContainerStore,
    /** Whether cgroup files are read directly (false: containerd is asked for every reading). */
    private readonly direct = true,
  ) {}

  private cgroups(): CgroupV1Reader {
    return (this.local ??= new CgroupV1Reader());
  }

  find(ref: string): ContainerRecord {
    return this.store.find(ref);
  }

  /** A reading of the container now (of its CPU figures at least, with `cpuOnly`), undefined when it is not running. */
  private async sample(id: string, cpuOnly = false): Promise<StatsReading | undefined> {
    const cur = this.store.find(id);
    if (!cur.State.Running) {
      this.thread.forget(cur.Id);
      this.local?.forget(cur.Id);
      return undefined;
    }
    return new Promise((resolve) => {
      if (this.wanted.size === 0) setTimeout(() => this.read(), WINDOW_MS);
      // (NetworkMode none: its namespace has only lo, which the counters leave out)
      const w = this.wanted.get(id) ?? { pid: cur.State.Pid, cpuOnly, net: cur.HostConfig.NetworkMode !== 'none', done: [] };
      w.cpuOnly &&= cpuOnly;
      w.done.push(resolve);
      this.wanted.set(id, w);
    });
  }

  /**
   * The wanted readings: the host's figures once and each task's cgroup files (on the reader thread), and
   * containerd's metrics (in calls of up to BATCH tasks) for those whose files could not be read.
   */
  private read(): void {
    const all = [...this.wanted];
    this.wanted = new Map();
    const items: ReadItem[] = all.map(([id, w]) => ({ id, pid: w.pid, cpuOnly: w.cpuOnly, net: w.net }));
    const done = (b: ReadBatch) => {
      const wanted: typeof all = [];
      all.forEach(([id, w], i) => {
        const got = b.out[i];
        if (!got) return wanted.push([id, w]);
        const r = { read: b.read, metrics: got.metrics, ...b.host, networks: got.networks ?? {} };
        for (const d of w.done) d(r);
      });
      this.fromContainerd(wanted, b.host);
    };
    if (!this.direct) return this.fromContainerd(all, hostFigures());
    void this.thread.read(items).then((b) => done(b ?? readBatch(this.cgroups(), items)));
  }

  /** containerd's metrics for readings the files did not give, in calls of up to BATCH tasks. */
  private fromContainerd(wanted: [string, Wanted][], host: ReadBatch['host']): void {
    for (let i = 0; i < wanted.length; i += BATCH) {
      const part = wanted.slice(i, i + BATCH);
      taskApi.metricsOf(this.ctr, part.map(([id]) => id)).then(
        (byId) => {
          const read = rfc3339Nano(now());
          for (const [id, w] of part) {
            const metrics = byId.get(id);
            const r = metrics ? { read, metrics, ...host, networks: w.net ? netCounters(w.pid) : {} } : undefined;
            for (const d of w.done) d(r);
          }
        },
        () => {
          for (const [, w] of part) for (const d of w.done) d(undefined);
        },
      );
    }
  }

  /**
   * stream=0: a reading with its precpu from one taken 100 ms before (as the engine's one-shot does). The first
   * reading gives the answer only its precpu_stats and preread, so only its CPU figures are read.
   */
  async once(id: string): Promise<{ cur: StatsReading; prev?: StatsReading }> {
    const first = await this.sample(id, true);
    if (!first) return { cur: EMPTY };
    await new Promise((r) => setTimeout(r, 100));
    const second = await this.sample(id);
    // (stopped in between: the zero reading of a container that is not running)
    return second ? { cur: second, prev: first } : { cur: EMPTY };
  }

  /**
   * A reading a second while `open()` holds and the container exists: as the reference's stream, a container that is
   * not running (never started, or exited meanwhile) gives the zero reading each second.
   */
  async *stream(id: string, open: () => boolean): AsyncGenerator<StatsReading> {
    while (open()) {
      if (!this.store.get(id)) return;
      yield (await this.sample(id)) ?? EMPTY;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
