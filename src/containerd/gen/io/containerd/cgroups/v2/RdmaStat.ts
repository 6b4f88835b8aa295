// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { RdmaEntry as _io_containerd_cgroups_v2_RdmaEntry, RdmaEntry__Output as _io_containerd_cgroups_v2_RdmaEntry__Output } from '../../../../io/containerd/cgroups/v2/RdmaEntry';

export interface RdmaStat {
  'current'?: (_io_containerd_cgroups_v2_RdmaEntry)[];
  'limit'?: (_io_containerd_cgroups_v2_RdmaEntry)[];
}

export interface RdmaStat__Output {
  'current': (_io_containerd_cgroups_v2_RdmaEntry__Output)[];
  'limit': (_io_containerd_cgroups_v2_RdmaEntry__Output)[];
}
