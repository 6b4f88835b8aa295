// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface PidsStat {
  'current'?: (number | string | Long);
  'limit'?: (number | string | Long);
}

export interface PidsStat__Output {
  'current': (string);
  'limit': (string);
}
