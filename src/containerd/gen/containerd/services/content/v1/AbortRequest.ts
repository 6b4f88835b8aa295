// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface AbortRequest {
  'ref'?: (string);
}

export interface AbortRequest__Output {
  'ref': (string);
}
