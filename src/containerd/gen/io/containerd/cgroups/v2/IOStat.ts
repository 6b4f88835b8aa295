// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { IOEntry as _io_containerd_cgroups_v2_IOEntry, IOEntry__Output as _io_containerd_cgroups_v2_IOEntry__Output } from '../../../../io/containerd/cgroups/v2/IOEntry';

export interface IOStat {
  'usage'?: (_io_containerd_cgroups_v2_IOEntry)[];
}

export interface IOStat__Output {
  'usage': (_io_containerd_cgroups_v2_IOEntry__Output)[];
}
