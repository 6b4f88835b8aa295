// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface CgroupStats {
  'nr_sleeping'?: (number | string | Long);
  'nr_running'?: (number | string | Long);
  'nr_stopped'?: (number | string | Long);
  'nr_uninterruptible'?: (number | string | Long);
  'nr_io_wait'?: (number | string | Long);
}

export interface CgroupStats__Output {
  'nr_sleeping': (string);
  'nr_running': (string);
  'nr_stopped': (string);
  'nr_uninterruptible': (string);
  'nr_io_wait': (string);
}
