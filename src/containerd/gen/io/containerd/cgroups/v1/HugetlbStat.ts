// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface HugetlbStat {
  'usage'?: (number | string | Long);
  'max'?: (number | string | Long);
  'failcnt'?: (number | string | Long);
  'pagesize'?: (string);
}

export interface HugetlbStat__Output {
  'usage': (string);
  'max': (string);
  'failcnt': (string);
  'pagesize': (string);
}
