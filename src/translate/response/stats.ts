// Stats samples in the engine's shape per API version — pure. Input: containerd's cgroup metrics (decoded; v1, or
// v2 on a unified-hierarchy host), the host's total CPU time, and the network counters of the container's namespace.
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
  metrics: any; // io.containerd.cgroups.v1.Metrics or io.containerd.cgroups.v2.Metrics, longs as strings
  systemCpuNs: number;
  /** The host's memory: a limit above it (no limit set) is reported as it, as the engine does. */
  memTotal?: number;
  onlineCpus: number;
  networks: Record<string, NetCounters>;
}

const n = (x: unknown): number => Number(x ?? 0);

/** containerd's cgroup v2 metrics (the unified hierarchy) carry cpu.usage_usec / memory.usage_limit. */
export function isV2Metrics(m: any): boolean {
  return m?.cpu?.usage_usec !== undefined || m?.memory?.usage_limit !== undefined || m?.io !== undefined;
}

/** The v2 memory.stat keys the engine passes on, in its order. */
const MEM_V2_KEYS = [
  'anon', 'file', 'kernel_stack', 'slab', 'sock', 'shmem', 'file_mapped', 'file_dirty', 'file_writeback', 'anon_thp', 'inactive_anon', 'active_anon', 'inactive_file', 'active_file',
  'unevictable', 'slab_reclaimable', 'slab_unreclaimable', 'pgfault', 'pgmajfault', 'workingset_refault', 'workingset_activate', 'workingset_nodereclaim', 'pgrefill', 'pgscan', 'pgsteal',
  'pgactivate', 'pgdeactivate', 'pglazyfree', 'pglazyfreed', 'thp_fault_alloc', 'thp_collapse_alloc',
];

/** The engine's cgroup v2 stats (statsV2): no per-CPU usage, no max_usage, v2 memory.stat names, io.stat bytes only. */
function v2Parts(r: StatsReading | undefined): { cpu: Record<string, unknown>; memory: Record<string, unknown>; blkio: Record<string, unknown>; pids: Record<string, number> } {
  const m = r?.metrics ?? {};
  const c = m.cpu ?? {};
  const cpu = {
    cpu_usage: { total_usage: n(c.usage_usec) * 1000, usage_in_kernelmode: n(c.system_usec) * 1000, usage_in_usermode: n(c.user_usec) * 1000 },
    ...(r ? { system_cpu_usage: r.systemCpuNs } : {}),
    throttling_data: { periods: n(c.nr_periods), throttled_periods: n(c.nr_throttled), throttled_time: n(c.throttled_usec) * 1000 },
  };
  const mem = m.memory ?? {};
  const stats = Object.fromEntries(MEM_V2_KEYS.map((k) => [k, n(mem[k])]));
  let limit = n(mem.usage_limit);
  if (r?.memTotal && limit > r.memTotal) limit = r.memTotal;
  const failcnt = n(m.memory_events?.oom);
  const memory = { ...(n(mem.usage) ? { usage: n(mem.usage) } : {}), stats, ...(failcnt ? { failcnt } : {}), ...(limit ? { limit } : {}) };
  const io = (m.io?.usage ?? []).flatMap((e: any) => [
    { major: n(e.major), minor: n(e.minor), op: 'read', value: n(e.rbytes) },
    { major: n(e.major), minor: n(e.minor), op: 'write', value: n(e.wbytes) },
  ]);
  const blkio = {
    io_service_bytes_recursive: io.length ? io : null,
    io_serviced_recursive: null,
    io_queue_recursive: null,
    io_service_time_recursive: null,
    io_wait_time_recursive: null,
    io_merged_recursive: null,
    io_time_recursive: null,
    sectors_recursive: null,
  };
  const pids = { ...(n(m.pids?.current) ? { current: n(m.pids?.current) } : {}), ...(n(m.pids?.limit) ? { limit: n(m.pids?.limit) } : {}) };
  return { cpu, memory, blkio, pids };
}

function cpuStats(r: StatsReading | undefined): Record<string, unknown> {
  if (r && isV2Metrics(r.metrics)) return v2Parts(r).cpu;
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
    ...(r.onlineCpus ? { online_cpus: r.onlineCpus } : {}),
    throttling_data: { periods: n(c.throttling?.periods), throttled_periods: n(c.throttling?.throttled_periods), throttled_time: n(c.throttling?.throttled_time) },
  };
}

/**
 * The v1 memory.stat figures the engine passes on (containerd's MemoryStat names on the right), in its order, each
 * followed by its total_ but the hierarchical limit; the memory+swap limit last, when the host accounts swap (cgroup
 * v1 memory.memsw.*). One literal: the object is made at its size, not grown a field at a time.
 */
function memStatsV1(mem: any): Record<string, number> {
  const stats: Record<string, number> = {
    active_anon: n(mem.active_anon),
    total_active_anon: n(mem.total_active_anon),
    active_file: n(mem.active_file),
    total_active_file: n(mem.total_active_file),
    cache: n(mem.cache),
    total_cache: n(mem.total_cache),
    dirty: n(mem.dirty),
    total_dirty: n(mem.total_dirty),
    hierarchical_memory_limit: n(mem.hierarchical_memory_limit),
    inactive_anon: n(mem.inactive_anon),
    total_inactive_anon: n(mem.total_inactive_anon),
    inactive_file: n(mem.inactive_file),
    total_inactive_file: n(mem.total_inactive_file),
    mapped_file: n(mem.mapped_file),
    total_mapped_file: n(mem.total_mapped_file),
    pgfault: n(mem.pg_fault),
    total_pgfault: n(mem.total_pg_fault),
    pgmajfault: n(mem.pg_maj_fault),
    total_pgmajfault: n(mem.total_pg_maj_fault),
    pgpgin: n(mem.pg_pg_in),
    total_pgpgin: n(mem.total_pg_pg_in),
    pgpgout: n(mem.pg_pg_out),
    total_pgpgout: n(mem.total_pg_pg_out),
    rss: n(mem.rss),
    total_rss: n(mem.total_rss),
    rss_huge: n(mem.rss_huge),
    total_rss_huge: n(mem.total_rss_huge),
    unevictable: n(mem.unevictable),
    total_unevictable: n(mem.total_unevictable),
    writeback: n(mem.writeback),
    total_writeback: n(mem.total_writeback),
  };
  if (mem.hierarchical_swap_limit !== undefined) stats.hierarchical_memsw_limit = n(mem.hierarchical_swap_limit);
  return stats;
}

/**
 * The sample of a container that is not running, as the reference sends it: its empty statistics (Go's zero values:
 * empty objects, null lists, no per-CPU figures), named at every version for a single reading (`once`, which the
 * reference encodes as it is); in a stream shaped per version (before 1.21 a zero `network`, from 1.21 named).
 */
export function toZeroStatsJSON(prev: StatsReading | undefined, v: ApiVersion, who: { id: string; name: string }, once: boolean): Record<string, unknown> {
  const cpu = () => ({ cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 }, throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 } });
  const lists = ['io_service_bytes_recursive', 'io_serviced_recursive', 'io_queue_recursive', 'io_service_time_recursive', 'io_wait_time_recursive', 'io_merged_recursive', 'io_time_recursive', 'sectors_recursive'];
  const out: Record<string, unknown> = {
    read: ZERO_TIME,
    preread: prev?.read ?? ZERO_TIME,
    pids_stats: {},
    blkio_stats: Object.fromEntries(lists.map((k) => [k, null])),
    num_procs: 0,
    storage_stats: {},
    cpu_stats: cpu(),
    precpu_stats: cpu(),
    memory_stats: {},
  };
  if (!once && !supports(v, 'StatsNameId')) out.network = sumNetworks({});
  else Object.assign(out, { name: who.name, id: who.id });
  return out;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The reading of a container that is not running (services/stats gives it): toZeroStatsJSON's. */
export const isZeroReading = (r: StatsReading): boolean => r.read === ZERO_TIME && !Object.keys(r.metrics ?? {}).length;

export function toStatsJSON(cur: StatsReading, prev: StatsReading | undefined, v: ApiVersion, who?: { id: string; name: string }): Record<string, unknown> {
  const m = cur.metrics ?? {};
  if (isV2Metrics(m)) return shapeStats(cur, prev, v, who, v2Parts(cur));
  const mem = m.memory ?? {};
  const stats = memStatsV1(mem);
  const blk = (entries: any[] | undefined) => (entries ?? []).map((e) => ({ major: n(e.major), minor: n(e.minor), op: e.op, value: n(e.value) }));
  const out: Record<string, unknown> = { read: cur.read };
  // The spec does not name preread; the reference sends it at every version (the zero time before a second reading).
  out.preread = prev?.read ?? '0001-01-01T00:00:00Z';
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
  // failcnt only when non-zero, as the reference (omitempty).
  const failcnt = n(mem.usage?.failcnt);
  // No limit set (the v1 counter's "unlimited", 8 EiB): the host's memory, as the engine reports it.
  let limit = n(mem.usage?.limit);
  if (cur.memTotal && limit > cur.memTotal) limit = cur.memTotal;
  out.memory_stats = { usage: n(mem.usage?.usage), max_usage: n(mem.usage?.max), stats, ...(failcnt ? { failcnt } : {}), limit };
  if (supports(v, 'StatsNetworks')) out.networks = cur.networks;
  else out.network = sumNetworks(cur.networks);
  // Newer CLIs print the container from these; older ones ignore them.
  if (who && supports(v, 'StatsNameId')) Object.assign(out, { name: who.name, id: who.id });
  return out;
}

/** The v2 sample: the same fields and order as v1's, filled from v2Parts. */
function shapeStats(cur: StatsReading, prev: StatsReading | undefined, v: ApiVersion, who: { id: string; name: string } | undefined, p: ReturnType<typeof v2Parts>): Record<string, unknown> {
  const out: Record<string, unknown> = { read: cur.read };
  // The spec does not name preread; the reference sends it at every version (the zero time before a second reading).
  out.preread = prev?.read ?? '0001-01-01T00:00:00Z';
  if (supports(v, 'StatsPids')) out.pids_stats = p.pids;
  out.blkio_stats = p.blkio;
  out.num_procs = 0;
  out.storage_stats = {};
  out.cpu_stats = p.cpu;
  if (supports(v, 'StatsPreCPU')) out.precpu_stats = cpuStats(prev);
  out.memory_stats = p.memory;
  if (supports(v, 'StatsNetworks')) out.networks = cur.networks;
  else out.network = sumNetworks(cur.networks);
  if (who && supports(v, 'StatsNameId')) Object.assign(out, { name: who.name, id: who.id });
  return out;
}

/** Before 1.21 (StatsNetworks): one `network` object, the sum over the interfaces. */
function sumNetworks(networks: Record<string, NetCounters>): NetCounters {
  // (the reference's key order)
  const total: NetCounters = { rx_bytes: 0, rx_packets: 0, rx_errors: 0, rx_dropped: 0, tx_bytes: 0, tx_packets: 0, tx_errors: 0, tx_dropped: 0 };
  for (const c of Object.values(networks)) for (const k of Object.keys(total) as (keyof NetCounters)[]) total[k] += c[k];
  return total;
}
