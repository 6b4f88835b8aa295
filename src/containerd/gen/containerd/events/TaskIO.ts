// Original file: github.com/containerd/containerd/api/events/task.proto


export interface TaskIO {
  'stdin'?: (string);
  'stdout'?: (string);
  'stderr'?: (string);
  'terminal'?: (boolean);
}

export interface TaskIO__Output {
  'stdin': (string);
  'stdout': (string);
  'stderr': (string);
  'terminal': (boolean);
}
