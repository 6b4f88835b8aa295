// Original file: github.com/containerd/containerd/api/services/snapshots/v1/snapshots.proto


export interface StatSnapshotRequest {
  'snapshotter'?: (string);
  'key'?: (string);
}

export interface StatSnapshotRequest__Output {
  'snapshotter': (string);
  'key': (string);
}
