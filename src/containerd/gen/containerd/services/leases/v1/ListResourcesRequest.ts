// Original file: github.com/containerd/containerd/api/services/leases/v1/leases.proto


export interface ListResourcesRequest {
  'id'?: (string);
}

export interface ListResourcesRequest__Output {
  'id': (string);
}
