// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { RdmaEntry as _io_containerd_cgroups_v1_RdmaEntry, RdmaEntry__Output as _io_containerd_cgroups_v1_RdmaEntry__Output } from '../../../../io/containerd/cgroups/v1/RdmaEntry';

export interface RdmaStat {
  'current'?: (_io_containerd_cgroups_v1_RdmaEntry)[];
  'limit'?: (_io_containerd_cgroups_v1_RdmaEntry)[];
}

export interface RdmaStat__Output {
  'current': (_io_containerd_cgroups_v1_RdmaEntry__Output)[];
  'limit': (_io_containerd_cgroups_v1_RdmaEntry__Output)[];
}
