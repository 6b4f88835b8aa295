// Original file: github.com/containerd/containerd/api/events/image.proto


export interface ImageDelete {
  'name'?: (string);
}

export interface ImageDelete__Output {
  'name': (string);
}
