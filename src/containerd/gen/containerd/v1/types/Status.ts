// Original file: github.com/containerd/containerd/api/types/task/task.proto

export const Status = {
  UNKNOWN: 'UNKNOWN',
  CREATED: 'CREATED',
  RUNNING: 'RUNNING',
  STOPPED: 'STOPPED',
  PAUSED: 'PAUSED',
  PAUSING: 'PAUSING',
} as const;

export type Status =
  | 'UNKNOWN'
  | 0
  | 'CREATED'
  | 1
  | 'RUNNING'
  | 2
  | 'STOPPED'
  | 3
  | 'PAUSED'
  | 4
  | 'PAUSING'
  | 5

export type Status__Output = typeof Status[keyof typeof Status]
