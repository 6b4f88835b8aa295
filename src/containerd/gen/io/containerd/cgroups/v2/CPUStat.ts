// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface CPUStat {
  'usage_usec'?: (number | string | Long);
  'user_usec'?: (number | string | Long);
  'system_usec'?: (number | string | Long);
  'nr_periods'?: (number | string | Long);
  'nr_throttled'?: (number | string | Long);
  'throttled_usec'?: (number | string | Long);
}

export interface CPUStat__Output {
  'usage_usec': (string);
  'user_usec': (string);
  'system_usec': (string);
  'nr_periods': (string);
  'nr_throttled': (string);
  'throttled_usec': (string);
}
