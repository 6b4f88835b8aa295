// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface GetRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
}

export interface GetRequest__Output {
  'container_id': (string);
  'exec_id': (string);
}
