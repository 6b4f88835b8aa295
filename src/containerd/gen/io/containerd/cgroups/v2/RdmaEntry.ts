// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto


export interface RdmaEntry {
  'device'?: (string);
  'hca_handles'?: (number);
  'hca_objects'?: (number);
}

export interface RdmaEntry__Output {
  'device': (string);
  'hca_handles': (number);
  'hca_objects': (number);
}
