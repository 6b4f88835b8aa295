// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

export const WriteAction = {
  STAT: 'STAT',
  WRITE: 'WRITE',
  COMMIT: 'COMMIT',
} as const;

export type WriteAction =
  | 'STAT'
  | 0
  | 'WRITE'
  | 1
  | 'COMMIT'
  | 2

export type WriteAction__Output = typeof WriteAction[keyof typeof WriteAction]
