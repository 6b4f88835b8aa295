// Original file: github.com/containerd/containerd/api/services/snapshots/v1/snapshots.proto


export interface RemoveSnapshotRequest {
  'snapshotter'?: (string);
  'key'?: (string);
}

export interface RemoveSnapshotRequest__Output {
  'snapshotter': (string);
  'key': (string);
}
