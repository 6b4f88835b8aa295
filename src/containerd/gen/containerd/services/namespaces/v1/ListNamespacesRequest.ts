// Original file: github.com/containerd/containerd/api/services/namespaces/v1/namespace.proto


export interface ListNamespacesRequest {
  'filter'?: (string);
}

export interface ListNamespacesRequest__Output {
  'filter': (string);
}
