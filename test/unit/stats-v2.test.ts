// cgroup v2 stats (a host on the unified hierarchy): containerd's io.containerd.cgroups.v2.Metrics, decoded as berth
// decodes it (longs as strings, defaults on), shaped as the engine's statsV2. This CI host is on cgroup v1, so the v2
// path is covered here with a simulated sample; the v1 path is covered end to end by the integration tests.
import { isV2Metrics, toStatsJSON, StatsReading } from '../../src/translate/response/stats';

const memStat = { anon: '1000', file: '2000', kernel_stack: '16384', slab: '0', sock: '0', shmem: '0', file_mapped: '0', file_dirty: '0', file_writeback: '0', anon_thp: '0', inactive_anon: '0', active_anon: '1000', inactive_file: '2000', active_file: '0', unevictable: '0', slab_reclaimable: '0', slab_unreclaimable: '0', pgfault: '120', pgmajfault: '1', workingset_refault: '0', workingset_activate: '0', workingset_nodereclaim: '0', pgrefill: '0', pgscan: '0', pgsteal: '0', pgactivate: '0', pgdeactivate: '0', pglazyfree: '0', pglazyfreed: '0', thp_fault_alloc: '0', thp_collapse_alloc: '0' };
const v2 = (over: Record<string, unknown> = {}) => ({
  pids: { current: '3', limit: '100' },
  cpu: { usage_usec: '1500', user_usec: '1000', system_usec: '500', nr_periods: '4', nr_throttled: '1', throttled_usec: '20' },
  memory: { ...memStat, usage: '4096000', usage_limit: '9223372036854771712', swap_usage: '0', swap_limit: '0' },
  rdma: null,
  io: { usage: [{ major: '8', minor: '0', rbytes: '4096', wbytes: '8192', rios: '1', wios: '2' }] },
  hugetlb: [],
  memory_events: { low: '0', high: '0', max: '0', oom: '2', oom_kill: '1' },
  ...over,
});
const reading = (metrics: unknown): StatsReading => ({ read: '2026-11-23T22:00:01Z', metrics, systemCpuNs: 5e12, onlineCpus: 2, networks: {}, memTotal: 8e9 });

test('v2 metrics are told from v1', () => {
  expect(isV2Metrics(v2())).toBe(true);
  expect(isV2Metrics({ cpu: { usage: { total: '1' } }, memory: { usage: { usage: '1' } }, blkio: {} })).toBe(false);
});

test("the engine's v2 shape: cpu from cpu.stat, memory from memory.current/memory.stat, io.stat bytes, pids", () => {
  const out = toStatsJSON(reading(v2()), reading(v2({ cpu: { usage_usec: '1000', user_usec: '700', system_usec: '300', nr_periods: '0', nr_throttled: '0', throttled_usec: '0' } })), '1.24');
  expect(out.cpu_stats).toEqual({ cpu_usage: { total_usage: 1500000, usage_in_kernelmode: 500000, usage_in_usermode: 1000000 }, system_cpu_usage: 5e12, throttling_data: { periods: 4, throttled_periods: 1, throttled_time: 20000 } });
  expect((out.precpu_stats as { cpu_usage: unknown }).cpu_usage).toEqual({ total_usage: 1000000, usage_in_kernelmode: 300000, usage_in_usermode: 700000 });
  const mem = out.memory_stats as Record<string, any>;
  // no limit set: the engine reports the host's memory; failcnt is memory.events' oom; no max_usage in v2
  expect(mem).toEqual({ usage: 4096000, stats: expect.any(Object), failcnt: 2, limit: 8e9 });
  expect(Object.keys(mem.stats)).toEqual(Object.keys(memStat));
  expect(mem.stats).toMatchObject({ anon: 1000, file: 2000, kernel_stack: 16384, pgfault: 120, pgmajfault: 1 });
  expect(out.blkio_stats).toEqual({
    io_service_bytes_recursive: [
      { major: 8, minor: 0, op: 'read', value: 4096 },
      { major: 8, minor: 0, op: 'write', value: 8192 },
    ],
    io_serviced_recursive: null, io_queue_recursive: null, io_service_time_recursive: null, io_wait_time_recursive: null, io_merged_recursive: null, io_time_recursive: null, sectors_recursive: null,
  });
  expect(out.pids_stats).toEqual({ current: 3, limit: 100 });
  expect(Object.keys(out)).toEqual(['read', 'preread', 'pids_stats', 'blkio_stats', 'num_procs', 'storage_stats', 'cpu_stats', 'precpu_stats', 'memory_stats', 'networks']);
});

test('a memory limit below the host memory is kept; before 1.22 the v1-era fields are shaped per version as for v1', () => {
  const out = toStatsJSON(reading(v2({ memory: { ...memStat, usage: '10', usage_limit: '67108864' }, memory_events: null })), undefined, '1.20');
  expect(out.memory_stats).toEqual({ usage: 10, stats: expect.any(Object), limit: 67108864 });
  expect(out).not.toHaveProperty('pids_stats');
  expect(out).toHaveProperty('network');
});
