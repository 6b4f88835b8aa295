// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface DeleteContentRequest {
  'digest'?: (string);
}

export interface DeleteContentRequest__Output {
  'digest': (string);
}
