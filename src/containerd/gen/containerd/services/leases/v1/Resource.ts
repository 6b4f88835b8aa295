// Original file: github.com/containerd/containerd/api/services/leases/v1/leases.proto


export interface Resource {
  'id'?: (string);
  'type'?: (string);
}

export interface Resource__Output {
  'id': (string);
  'type': (string);
}
