// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface MemoryOomControl {
  'oom_kill_disable'?: (number | string | Long);
  'under_oom'?: (number | string | Long);
  'oom_kill'?: (number | string | Long);
}

export interface MemoryOomControl__Output {
  'oom_kill_disable': (string);
  'under_oom': (string);
  'oom_kill': (string);
}
