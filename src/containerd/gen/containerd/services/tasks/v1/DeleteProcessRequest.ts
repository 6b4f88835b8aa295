// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface DeleteProcessRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
}

export interface DeleteProcessRequest__Output {
  'container_id': (string);
  'exec_id': (string);
}
