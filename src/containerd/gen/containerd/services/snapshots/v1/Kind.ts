// Original file: github.com/containerd/containerd/api/services/snapshots/v1/snapshots.proto

export const Kind = {
  UNKNOWN: 'UNKNOWN',
  VIEW: 'VIEW',
  ACTIVE: 'ACTIVE',
  COMMITTED: 'COMMITTED',
} as const;

export type Kind =
  | 'UNKNOWN'
  | 0
  | 'VIEW'
  | 1
  | 'ACTIVE'
  | 2
  | 'COMMITTED'
  | 3

export type Kind__Output = typeof Kind[keyof typeof Kind]
