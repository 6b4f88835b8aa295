// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface Throttle {
  'periods'?: (number | string | Long);
  'throttled_periods'?: (number | string | Long);
  'throttled_time'?: (number | string | Long);
}

export interface Throttle__Output {
  'periods': (string);
  'throttled_periods': (string);
  'throttled_time': (string);
}
