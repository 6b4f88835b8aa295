// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface InfoRequest {
  'digest'?: (string);
}

export interface InfoRequest__Output {
  'digest': (string);
}
