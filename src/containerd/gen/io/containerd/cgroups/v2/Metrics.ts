// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { PidsStat as _io_containerd_cgroups_v2_PidsStat, PidsStat__Output as _io_containerd_cgroups_v2_PidsStat__Output } from '../../../../io/containerd/cgroups/v2/PidsStat';
import type { CPUStat as _io_containerd_cgroups_v2_CPUStat, CPUStat__Output as _io_containerd_cgroups_v2_CPUStat__Output } from '../../../../io/containerd/cgroups/v2/CPUStat';
import type { MemoryStat as _io_containerd_cgroups_v2_MemoryStat, MemoryStat__Output as _io_containerd_cgroups_v2_MemoryStat__Output } from '../../../../io/containerd/cgroups/v2/MemoryStat';
import type { RdmaStat as _io_containerd_cgroups_v2_RdmaStat, RdmaStat__Output as _io_containerd_cgroups_v2_RdmaStat__Output } from '../../../../io/containerd/cgroups/v2/RdmaStat';
import type { IOStat as _io_containerd_cgroups_v2_IOStat, IOStat__Output as _io_containerd_cgroups_v2_IOStat__Output } from '../../../../io/containerd/cgroups/v2/IOStat';
import type { HugeTlbStat as _io_containerd_cgroups_v2_HugeTlbStat, HugeTlbStat__Output as _io_containerd_cgroups_v2_HugeTlbStat__Output } from '../../../../io/containerd/cgroups/v2/HugeTlbStat';
import type { MemoryEvents as _io_containerd_cgroups_v2_MemoryEvents, MemoryEvents__Output as _io_containerd_cgroups_v2_MemoryEvents__Output } from '../../../../io/containerd/cgroups/v2/MemoryEvents';

export interface Metrics {
  'pids'?: (_io_containerd_cgroups_v2_PidsStat | null);
  'cpu'?: (_io_containerd_cgroups_v2_CPUStat | null);
  'memory'?: (_io_containerd_cgroups_v2_MemoryStat | null);
  'rdma'?: (_io_containerd_cgroups_v2_RdmaStat | null);
  'io'?: (_io_containerd_cgroups_v2_IOStat | null);
  'hugetlb'?: (_io_containerd_cgroups_v2_HugeTlbStat)[];
  'memory_events'?: (_io_containerd_cgroups_v2_MemoryEvents | null);
}

export interface Metrics__Output {
  'pids': (_io_containerd_cgroups_v2_PidsStat__Output | null);
  'cpu': (_io_containerd_cgroups_v2_CPUStat__Output | null);
  'memory': (_io_containerd_cgroups_v2_MemoryStat__Output | null);
  'rdma': (_io_containerd_cgroups_v2_RdmaStat__Output | null);
  'io': (_io_containerd_cgroups_v2_IOStat__Output | null);
  'hugetlb': (_io_containerd_cgroups_v2_HugeTlbStat__Output)[];
  'memory_events': (_io_containerd_cgroups_v2_MemoryEvents__Output | null);
}
