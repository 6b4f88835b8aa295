// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { BlkIOEntry as _io_containerd_cgroups_v1_BlkIOEntry, BlkIOEntry__Output as _io_containerd_cgroups_v1_BlkIOEntry__Output } from '../../../../io/containerd/cgroups/v1/BlkIOEntry';

export interface BlkIOStat {
  'io_service_bytes_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_serviced_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_queued_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_service_time_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_wait_time_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_merged_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'io_time_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
  'sectors_recursive'?: (_io_containerd_cgroups_v1_BlkIOEntry)[];
}

export interface BlkIOStat__Output {
  'io_service_bytes_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_serviced_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_queued_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_service_time_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_wait_time_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_merged_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'io_time_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
  'sectors_recursive': (_io_containerd_cgroups_v1_BlkIOEntry__Output)[];
}
