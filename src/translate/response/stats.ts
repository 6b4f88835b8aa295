// Stats samples in the engine's shape per API version — pure. Input: containerd's cgroup v1 metrics (decoded),
// the host's total CPU time, and the network counters read from the container's namespace.
import { ApiVersion, supports } from '../version/features';

export interface NetCounters {
  rx_bytes: number;
  rx_dropped: number;
  rx_errors: number;
  rx_packets: number;
  tx_bytes: number;
  tx_dropped: number;
  tx_errors: number;
  tx_packets: number;
}

export interface StatsReading {
  read: string;
  metrics: any; // io.containerd.cgroups.v1.Metrics, longs as strings
  systemCpuNs: number;
  onlineCpus: number;
  networks: Record<string, NetCounters>;
}

const n = (x: unknown): number => Number(x ?? 0);

function cpuStats(r: StatsReading | undefined): Record<string, unknown> {
  if (!r) return { cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 }, throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 } };
  const c = r.metrics?.cpu ?? {};
  return {
    cpu_usage: {
      total_usage: n(c.usage?.total),
      percpu_usage: (c.usage?.per_cpu ?? []).map(n),
      usage_in_kernelmode: n(c.usage?.kernel),
      usage_in_usermode: n(c.usage?.user),
    },
    system_cpu_usage: r.systemCpuNs,
    throttling_data: { periods: n(c.throttling?.periods), throttled_periods: n(c.throttling?.throttled_periods), throttled_time: n(c.throttling?.throttled_time) },
  };
}

const MEM_KEYS: [string, string][] = [
  ['active_anon', 'active_anon'], ['active_file', 'active_file'], ['cache', 'cache'], ['dirty', 'dirty'],
  ['hierarchical_memory_limit', 'hierarchical_memory_limit'], ['inactive_anon', 'inactive_anon'], ['inactive_file', 'inactive_file'],
  ['mapped_file', 'mapped_file'], ['pgfault', 'pg_fault'], ['pgmajfault', 'pg_maj_fault'], ['pgpgin', 'pg_pg_in'], ['pgpgout', 'pg_pg_out'],
  ['rss', 'rss'], ['rss_huge', 'rss_huge'], ['unevictable', 'unevictable'], ['writeback', 'writeback'],
];

export function toStatsJSON(cur: StatsReading, prev: StatsReading | undefined, v: ApiVersion, who?: { id: string; name: string }): Record<string, unknown> {
  const m = cur.metrics ?? {};
  const mem = m.memory ?? {};
  const stats: Record<string, number> = {};
  for (const [wire, key] of MEM_KEYS) {
    stats[wire] = n(mem[key]);
    stats[`total_${wire}`] = n(mem[`total_${key}`]);
  }
  delete stats.total_hierarchical_memory_limit;
  const blk = (entries: any[] | undefined) => (entries ?? []).map((e) => ({ major: n(e.major), minor: n(e.minor), op: e.op, value: n(e.value) }));
  const out: Record<string, unknown> = { read: cur.read };
  if (supports(v, 'StatsPreCPU')) out.preread = prev?.read ?? '0001-01-01T00:00:00Z';
  if (supports(v, 'StatsPids')) out.pids_stats = { current: n(m.pids?.current), ...(n(m.pids?.limit) ? { limit: n(m.pids?.limit) } : {}) };
  out.blkio_stats = {
    io_service_bytes_recursive: blk(m.blkio?.io_service_bytes_recursive),
    io_serviced_recursive: blk(m.blkio?.io_serviced_recursive),
    io_queue_recursive: blk(m.blkio?.io_queued_recursive),
    io_service_time_recursive: blk(m.blkio?.io_service_time_recursive),
    io_wait_time_recursive: blk(m.blkio?.io_wait_time_recursive),
    io_merged_recursive: blk(m.blkio?.io_merged_recursive),
    io_time_recursive: blk(m.blkio?.io_time_recursive),
    sectors_recursive: blk(m.blkio?.sectors_recursive),
  };
  out.num_procs = 0;
  out.storage_stats = {};
  out.cpu_stats = cpuStats(cur);
  if (supports(v, 'StatsPreCPU')) out.precpu_stats = cpuStats(prev);
  out.memory_stats = { usage: n(mem.usage?.usage), max_usage: n(mem.usage?.max), stats, failcnt: n(mem.usage?.failcnt), limit: n(mem.usage?.limit) };
  if (supports(v, 'StatsNetworks')) out.networks = cur.networks;
  else {
    const total: NetCounters = { rx_bytes: 0, rx_dropped: 0, rx_errors: 0, rx_packets: 0, tx_bytes: 0, tx_dropped: 0, tx_errors: 0, tx_packets: 0 };
    for (const c of Object.values(cur.networks)) for (const k of Object.keys(total) as (keyof NetCounters)[]) total[k] += c[k];
    out.network = total;
  }
  // Newer CLIs print the container from these; older ones ignore them.
  if (who) Object.assign(out, { name: who.name, id: who.id });
  return out;
}
