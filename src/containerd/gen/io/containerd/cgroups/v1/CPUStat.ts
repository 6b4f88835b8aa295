// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { CPUUsage as _io_containerd_cgroups_v1_CPUUsage, CPUUsage__Output as _io_containerd_cgroups_v1_CPUUsage__Output } from '../../../../io/containerd/cgroups/v1/CPUUsage';
import type { Throttle as _io_containerd_cgroups_v1_Throttle, Throttle__Output as _io_containerd_cgroups_v1_Throttle__Output } from '../../../../io/containerd/cgroups/v1/Throttle';

export interface CPUStat {
  'usage'?: (_io_containerd_cgroups_v1_CPUUsage | null);
  'throttling'?: (_io_containerd_cgroups_v1_Throttle | null);
}

export interface CPUStat__Output {
  'usage': (_io_containerd_cgroups_v1_CPUUsage__Output | null);
  'throttling': (_io_containerd_cgroups_v1_Throttle__Output | null);
}
