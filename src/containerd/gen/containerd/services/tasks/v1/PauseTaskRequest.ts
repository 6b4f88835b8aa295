// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface PauseTaskRequest {
  'container_id'?: (string);
}

export interface PauseTaskRequest__Output {
  'container_id': (string);
}
