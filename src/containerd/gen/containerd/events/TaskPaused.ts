// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskPaused {
  'container_id'?: (string);
}

export interface TaskPaused__Output {
  'container_id': (string);
}
