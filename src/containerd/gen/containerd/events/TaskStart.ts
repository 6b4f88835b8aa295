// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskStart {
  'container_id'?: (string);
  'pid'?: (number);
}

export interface TaskStart__Output {
  'container_id': (string);
  'pid': (number);
}
