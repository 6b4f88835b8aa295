// Original file: github.com/containerd/containerd/api/events/snapshot.proto


export interface SnapshotPrepare {
  'key'?: (string);
  'parent'?: (string);
}

export interface SnapshotPrepare__Output {
  'key': (string);
  'parent': (string);
}
