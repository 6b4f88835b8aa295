// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface ListPidsRequest {
  'container_id'?: (string);
}

export interface ListPidsRequest__Output {
  'container_id': (string);
}
