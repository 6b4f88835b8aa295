// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface HugeTlbStat {
  'current'?: (number | string | Long);
  'max'?: (number | string | Long);
  'pagesize'?: (string);
}

export interface HugeTlbStat__Output {
  'current': (string);
  'max': (string);
  'pagesize': (string);
}
