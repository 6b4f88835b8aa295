// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface MetricsRequest {
  'filters'?: (string)[];
}

export interface MetricsRequest__Output {
  'filters': (string)[];
}
