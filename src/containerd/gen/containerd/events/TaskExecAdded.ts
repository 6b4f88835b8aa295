// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskExecAdded {
  'container_id'?: (string);
  'exec_id'?: (string);
}

export interface TaskExecAdded__Output {
  'container_id': (string);
  'exec_id': (string);
}
