// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface WaitRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
}

export interface WaitRequest__Output {
  'container_id': (string);
  'exec_id': (string);
}
