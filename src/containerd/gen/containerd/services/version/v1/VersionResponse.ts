// Original file: github.com/containerd/containerd/api/services/version/v1/version.proto


export interface VersionResponse {
  'version'?: (string);
  'revision'?: (string);
}

export interface VersionResponse__Output {
  'version': (string);
  'revision': (string);
}
