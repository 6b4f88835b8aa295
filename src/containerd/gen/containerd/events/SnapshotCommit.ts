// Original file: github.com/containerd/containerd/api/events/snapshot.proto


export interface SnapshotCommit {
  'key'?: (string);
  'name'?: (string);
}

export interface SnapshotCommit__Output {
  'key': (string);
  'name': (string);
}
