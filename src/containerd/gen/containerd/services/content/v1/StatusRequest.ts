// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface StatusRequest {
  'ref'?: (string);
}

export interface StatusRequest__Output {
  'ref': (string);
}
