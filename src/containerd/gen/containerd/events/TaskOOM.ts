// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskOOM {
  'container_id'?: (string);
}

export interface TaskOOM__Output {
  'container_id': (string);
}
