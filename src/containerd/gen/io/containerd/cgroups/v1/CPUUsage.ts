// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface CPUUsage {
  'total'?: (number | string | Long);
  'kernel'?: (number | string | Long);
  'user'?: (number | string | Long);
  'per_cpu'?: (number | string | Long)[];
}

export interface CPUUsage__Output {
  'total': (string);
  'kernel': (string);
  'user': (string);
  'per_cpu': (string)[];
}
