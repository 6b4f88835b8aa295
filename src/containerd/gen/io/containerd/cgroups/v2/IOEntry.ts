// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface IOEntry {
  'major'?: (number | string | Long);
  'minor'?: (number | string | Long);
  'rbytes'?: (number | string | Long);
  'wbytes'?: (number | string | Long);
  'rios'?: (number | string | Long);
  'wios'?: (number | string | Long);
}

export interface IOEntry__Output {
  'major': (string);
  'minor': (string);
  'rbytes': (string);
  'wbytes': (string);
  'rios': (string);
  'wios': (string);
}
