// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto


export interface ListStatusesRequest {
  'filters'?: (string)[];
}

export interface ListStatusesRequest__Output {
  'filters': (string)[];
}
