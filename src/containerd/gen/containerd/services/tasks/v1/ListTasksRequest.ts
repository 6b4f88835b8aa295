// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface ListTasksRequest {
  'filter'?: (string);
}

export interface ListTasksRequest__Output {
  'filter': (string);
}
