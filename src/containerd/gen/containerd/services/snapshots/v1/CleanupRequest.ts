// Original file: github.com/containerd/containerd/api/services/snapshots/v1/snapshots.proto


export interface CleanupRequest {
  'snapshotter'?: (string);
}

export interface CleanupRequest__Output {
  'snapshotter': (string);
}
