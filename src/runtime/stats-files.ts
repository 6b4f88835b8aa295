// The files a stats reading is made of, read synchronously (on the stats reader thread, services/stats-reader-worker,
// or on the main thread where that thread cannot run): each task's cgroup v1 files (runtime/cgroup-metrics), the
// host's CPU time (/proc/stat, as the engine computes system_cpu_usage), its online CPUs and memory, and the network
// counters of a container's namespace (/proc/<pid>/net/dev).
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { NetCounters } from '../translate/response/stats';
import { rfc3339Nano } from '../translate/time';
import { now } from './clock';
import type { CgroupV1Reader } from './cgroup-metrics';

const CLK_TCK = 100;

function systemCpuNs(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return 0;
  const ticks = line.trim().split(/\s+/).slice(1, 8).reduce((a, b) => a + Number(b), 0);
  return (ticks * 1e9) / CLK_TCK;
}

export function netCounters(pid: number): Record<string, NetCounters> {
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

/** The host's online CPUs (os.cpus() reads /proc/cpuinfo and every CPU's times: asked again at most once a second). */
let cpus = { n: 0, at: 0 };
function onlineCpus(): number {
  const t = Date.now();
  if (t - cpus.at > 1000) cpus = { n: os.cpus().length, at: t };
  return cpus.n;
}

export interface HostFigures {
  systemCpuNs: number;
  onlineCpus: number;
  memTotal: number;
}

/** One task to read: its init's pid, whether only its CPU figures, whether its namespace's network counters. */
export interface ReadItem {
  id: string;
  pid: number;
  cpuOnly: boolean;
  net: boolean;
}

/** A batch's readings: the time and host figures, then per item its cgroup metrics (undefined: not readable here). */
export interface ReadBatch {
  read: string;
  host: HostFigures;
  out: ({ metrics: Record<string, unknown>; networks?: Record<string, NetCounters> } | undefined)[];
}

/** Reads a batch: the host's figures once, then each task's files. */
export function readBatch(reader: CgroupV1Reader | undefined, items: ReadItem[]): ReadBatch {
  const host = { systemCpuNs: systemCpuNs(), onlineCpus: onlineCpus(), memTotal: os.totalmem() };
  const read = rfc3339Nano(now());
  const out = items.map((it) => {
    const metrics = reader?.metrics(it.id, it.pid, it.cpuOnly);
    if (!metrics) return undefined;
    return { metrics, ...(it.net && !it.cpuOnly ? { networks: netCounters(it.pid) } : {}) };
  });
  return { read, host, out };
}

/** The host's figures alone (for readings containerd gives). */
export function hostFigures(): HostFigures {
  return { systemCpuNs: systemCpuNs(), onlineCpus: onlineCpus(), memTotal: os.totalmem() };
}
