// Original file: github.com/containerd/containerd/api/services/images/v1/images.proto


export interface ListImagesRequest {
  'filters'?: (string)[];
}

export interface ListImagesRequest__Output {
  'filters': (string)[];
}
