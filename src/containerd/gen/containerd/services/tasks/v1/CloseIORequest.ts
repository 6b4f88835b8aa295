// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface CloseIORequest {
  'container_id'?: (string);
  'exec_id'?: (string);
  'stdin'?: (boolean);
}

export interface CloseIORequest__Output {
  'container_id': (string);
  'exec_id': (string);
  'stdin': (boolean);
}
