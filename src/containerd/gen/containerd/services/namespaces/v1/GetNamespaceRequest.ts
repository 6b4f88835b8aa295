// Original file: github.com/containerd/containerd/api/services/namespaces/v1/namespace.proto


export interface GetNamespaceRequest {
  'name'?: (string);
}

export interface GetNamespaceRequest__Output {
  'name': (string);
}
