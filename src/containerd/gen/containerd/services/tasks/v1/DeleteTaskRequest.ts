// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface DeleteTaskRequest {
  'container_id'?: (string);
}

export interface DeleteTaskRequest__Output {
  'container_id': (string);
}
