// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface KillRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
  'signal'?: (number);
  'all'?: (boolean);
}

export interface KillRequest__Output {
  'container_id': (string);
  'exec_id': (string);
  'signal': (number);
  'all': (boolean);
}
