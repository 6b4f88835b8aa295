// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface ListContentRequest {
  'filters'?: (string)[];
}

export interface ListContentRequest__Output {
  'filters': (string)[];
}
