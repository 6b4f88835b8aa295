// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface StartRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
}

export interface StartRequest__Output {
  'container_id': (string);
  'exec_id': (string);
}
