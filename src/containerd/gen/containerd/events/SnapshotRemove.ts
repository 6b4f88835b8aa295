// Original file: github.com/containerd/containerd/api/events/snapshot.proto


export interface SnapshotRemove {
  'key'?: (string);
}

export interface SnapshotRemove__Output {
  'key': (string);
}
