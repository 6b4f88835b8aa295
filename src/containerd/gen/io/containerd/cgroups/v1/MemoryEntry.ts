// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface MemoryEntry {
  'limit'?: (number | string | Long);
  'usage'?: (number | string | Long);
  'max'?: (number | string | Long);
  'failcnt'?: (number | string | Long);
}

export interface MemoryEntry__Output {
  'limit': (string);
  'usage': (string);
  'max': (string);
  'failcnt': (string);
}
