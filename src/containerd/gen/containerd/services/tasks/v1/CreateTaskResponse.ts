// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface CreateTaskResponse {
  'container_id'?: (string);
  'pid'?: (number);
}

export interface CreateTaskResponse__Output {
  'container_id': (string);
  'pid': (number);
}
