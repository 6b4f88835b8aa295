// Readings for GET /containers/(id)/stats (one, a pair for stream=0, or one a second while the container runs): the
// task's cgroup figures (read from its cgroup v1 files, in the shape of containerd's task metrics; containerd's
// Tasks.Metrics where they cannot be read so: a cgroup v2 host), the host's CPU time (/proc/stat, as the engine
// computes system_cpu_usage) and the network counters of the container's namespace (/proc/<pid>/net/dev).
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Containerd } from '../containerd/client';
import * as taskApi from '../containerd/tasks';
import type { ContainerStore } from '../store/containers';
import type { StatsReading, NetCounters } from '../translate/response/stats';
import type { ContainerRecord } from '../types/container';
import { rfc3339Nano } from '../translate/time';
import { now } from '../runtime/clock';
import { CgroupV1Reader } from '../runtime/cgroup-metrics';

const CLK_TCK = 100;

function systemCpuNs(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return 0;
  const ticks = line.trim().split(/\s+/).slice(1, 8).reduce((a, b) => a + Number(b), 0);
  return (ticks * 1e9) / CLK_TCK;
}

function netCounters(pid: number): Record<string, NetCounters> {
  const out: Record<string, NetCounters> = {};
  let text = '';
  try {
    text = fs.readFileSync(`/proc/${pid}/net/dev`, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n').slice(2)) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    if (!m || m[1] === 'lo') continue;
    const f = m[2].trim().split(/\s+/).map(Number);
    out[m[1]] = { rx_bytes: f[0], rx_packets: f[1], rx_errors: f[2], rx_dropped: f[3], tx_bytes: f[8], tx_packets: f[9], tx_errors: f[10], tx_dropped: f[11] };
  }
  return out;
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

/** The host's online CPUs (os.cpus() reads /proc/cpuinfo and every CPU's times: asked again at most once a second). */
let cpus = { n: 0, at: 0 };
function onlineCpus(): number {
  const t = Date.now();
  if (t - cpus.at > 1000) cpus = { n: os.cpus().length, at: t };
  return cpus.n;
}

const EMPTY: StatsReading = { read: '0001-01-01T00:00:00Z', metrics: {}, systemCpuNs: 0, onlineCpus: 0, networks: {} };

export class StatsService {
  /** Readings wanted in this window (`docker stats` asks for every container at once). */
  private wanted = new Map<string, { pid: number; cpuOnly: boolean; net: boolean; done: ((r: StatsReading | undefined) => void)[] }>();
  private readonly cgroups = new CgroupV1Reader();

  constructor(
    private readonly ctr: Containerd,
    private readonly store: ContainerStore,
    /** Whether cgroup files are read directly (false: containerd is asked for every reading). */
    private readonly direct = true,
  ) {}

  find(ref: string): ContainerRecord {
    return this.store.find(ref);
  }

  /** A reading of the container now (of its CPU figures at least, with `cpuOnly`), undefined when it is not running. */
  private async sample(id: string, cpuOnly = false): Promise<StatsReading | undefined> {
    const cur = this.store.find(id);
    if (!cur.State.Running) {
      this.cgroups.forget(cur.Id);
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
   * The wanted readings: the host's figures once, each task's cgroup files, and containerd's metrics (in calls of up
   * to BATCH tasks) for those whose files could not be read.
   */
  private read(): void {
    const all = [...this.wanted];
    this.wanted = new Map();
    const host = { systemCpuNs: systemCpuNs(), onlineCpus: onlineCpus(), memTotal: os.totalmem() };
    const read = rfc3339Nano(now());
    const wanted: typeof all = [];
    for (const [id, w] of all) {
      const metrics = this.direct ? this.cgroups.metrics(id, w.pid, w.cpuOnly) : undefined;
      if (!metrics) {
        wanted.push([id, w]);
        continue;
      }
      const r = { read, metrics, ...host, networks: w.cpuOnly || !w.net ? {} : netCounters(w.pid) };
      for (const d of w.done) d(r);
    }
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

  /** A reading a second while the container runs and `open()` holds. */
  async *stream(id: string, open: () => boolean): AsyncGenerator<StatsReading> {
    while (open()) {
      const cur = await this.sample(id);
      if (!cur) return;
      yield cur;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
