// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskExecStarted {
  'container_id'?: (string);
  'exec_id'?: (string);
  'pid'?: (number);
}

export interface TaskExecStarted__Output {
  'container_id': (string);
  'exec_id': (string);
  'pid': (number);
}
