// Original file: github.com/containerd/containerd/api/services/leases/v1/leases.proto


export interface ListRequest {
  'filters'?: (string)[];
}

export interface ListRequest__Output {
  'filters': (string)[];
}
