// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface BlkIOEntry {
  'op'?: (string);
  'device'?: (string);
  'major'?: (number | string | Long);
  'minor'?: (number | string | Long);
  'value'?: (number | string | Long);
}

export interface BlkIOEntry__Output {
  'op': (string);
  'device': (string);
  'major': (string);
  'minor': (string);
  'value': (string);
}
