// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { HugetlbStat as _io_containerd_cgroups_v1_HugetlbStat, HugetlbStat__Output as _io_containerd_cgroups_v1_HugetlbStat__Output } from '../../../../io/containerd/cgroups/v1/HugetlbStat';
import type { PidsStat as _io_containerd_cgroups_v1_PidsStat, PidsStat__Output as _io_containerd_cgroups_v1_PidsStat__Output } from '../../../../io/containerd/cgroups/v1/PidsStat';
import type { CPUStat as _io_containerd_cgroups_v1_CPUStat, CPUStat__Output as _io_containerd_cgroups_v1_CPUStat__Output } from '../../../../io/containerd/cgroups/v1/CPUStat';
import type { MemoryStat as _io_containerd_cgroups_v1_MemoryStat, MemoryStat__Output as _io_containerd_cgroups_v1_MemoryStat__Output } from '../../../../io/containerd/cgroups/v1/MemoryStat';
import type { BlkIOStat as _io_containerd_cgroups_v1_BlkIOStat, BlkIOStat__Output as _io_containerd_cgroups_v1_BlkIOStat__Output } from '../../../../io/containerd/cgroups/v1/BlkIOStat';
import type { RdmaStat as _io_containerd_cgroups_v1_RdmaStat, RdmaStat__Output as _io_containerd_cgroups_v1_RdmaStat__Output } from '../../../../io/containerd/cgroups/v1/RdmaStat';
import type { NetworkStat as _io_containerd_cgroups_v1_NetworkStat, NetworkStat__Output as _io_containerd_cgroups_v1_NetworkStat__Output } from '../../../../io/containerd/cgroups/v1/NetworkStat';
import type { CgroupStats as _io_containerd_cgroups_v1_CgroupStats, CgroupStats__Output as _io_containerd_cgroups_v1_CgroupStats__Output } from '../../../../io/containerd/cgroups/v1/CgroupStats';
import type { MemoryOomControl as _io_containerd_cgroups_v1_MemoryOomControl, MemoryOomControl__Output as _io_containerd_cgroups_v1_MemoryOomControl__Output } from '../../../../io/containerd/cgroups/v1/MemoryOomControl';

export interface Metrics {
  'hugetlb'?: (_io_containerd_cgroups_v1_HugetlbStat)[];
  'pids'?: (_io_containerd_cgroups_v1_PidsStat | null);
  'cpu'?: (_io_containerd_cgroups_v1_CPUStat | null);
  'memory'?: (_io_containerd_cgroups_v1_MemoryStat | null);
  'blkio'?: (_io_containerd_cgroups_v1_BlkIOStat | null);
  'rdma'?: (_io_containerd_cgroups_v1_RdmaStat | null);
  'network'?: (_io_containerd_cgroups_v1_NetworkStat)[];
  'cgroup_stats'?: (_io_containerd_cgroups_v1_CgroupStats | null);
  'memory_oom_control'?: (_io_containerd_cgroups_v1_MemoryOomControl | null);
}

export interface Metrics__Output {
  'hugetlb': (_io_containerd_cgroups_v1_HugetlbStat__Output)[];
  'pids': (_io_containerd_cgroups_v1_PidsStat__Output | null);
  'cpu': (_io_containerd_cgroups_v1_CPUStat__Output | null);
  'memory': (_io_containerd_cgroups_v1_MemoryStat__Output | null);
  'blkio': (_io_containerd_cgroups_v1_BlkIOStat__Output | null);
  'rdma': (_io_containerd_cgroups_v1_RdmaStat__Output | null);
  'network': (_io_containerd_cgroups_v1_NetworkStat__Output)[];
  'cgroup_stats': (_io_containerd_cgroups_v1_CgroupStats__Output | null);
  'memory_oom_control': (_io_containerd_cgroups_v1_MemoryOomControl__Output | null);
}
