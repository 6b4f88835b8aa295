// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface MemoryEvents {
  'low'?: (number | string | Long);
  'high'?: (number | string | Long);
  'max'?: (number | string | Long);
  'oom'?: (number | string | Long);
  'oom_kill'?: (number | string | Long);
}

export interface MemoryEvents__Output {
  'low': (string);
  'high': (string);
  'max': (string);
  'oom': (string);
  'oom_kill': (string);
}
