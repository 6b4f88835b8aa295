// Readings for GET /containers/(id)/stats: containerd task metrics, the host's CPU time (/proc/stat, as the
// engine computes system_cpu_usage) and the network counters of the container's namespace (/proc/<pid>/net/dev).
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Containerd } from '../containerd/client';
import { conflict } from '../errors';
import type { StatsReading, NetCounters } from '../translate/response/stats';
import { rfc3339Nano } from '../translate/time';
import { now } from '../runtime/clock';

const CLK_TCK = 100;

export function systemCpuNs(): number {
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

export async function readStats(ctr: Containerd, id: string, pid: number): Promise<StatsReading> {
  const { metrics } = await ctr.tasks.Metrics({ filters: [`id==${id}`] });
  if (!metrics.length) throw conflict(`Container ${id} is not running`);
  return { read: rfc3339Nano(now()), metrics: ctr.any.unpack(metrics[0].data as never), systemCpuNs: systemCpuNs(), onlineCpus: os.cpus().length, networks: netCounters(pid) };
}
