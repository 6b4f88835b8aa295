// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface NetworkStat {
  'name'?: (string);
  'rx_bytes'?: (number | string | Long);
  'rx_packets'?: (number | string | Long);
  'rx_errors'?: (number | string | Long);
  'rx_dropped'?: (number | string | Long);
  'tx_bytes'?: (number | string | Long);
  'tx_packets'?: (number | string | Long);
  'tx_errors'?: (number | string | Long);
  'tx_dropped'?: (number | string | Long);
}

export interface NetworkStat__Output {
  'name': (string);
  'rx_bytes': (string);
  'rx_packets': (string);
  'rx_errors': (string);
  'rx_dropped': (string);
  'tx_bytes': (string);
  'tx_packets': (string);
  'tx_errors': (string);
  'tx_dropped': (string);
}
