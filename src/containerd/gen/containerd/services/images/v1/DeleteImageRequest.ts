// Original file: github.com/containerd/containerd/api/services/images/v1/images.proto


export interface DeleteImageRequest {
  'name'?: (string);
  'sync'?: (boolean);
}

export interface DeleteImageRequest__Output {
  'name': (string);
  'sync': (boolean);
}
