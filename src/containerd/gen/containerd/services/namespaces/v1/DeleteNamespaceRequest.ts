// Original file: github.com/containerd/containerd/api/services/namespaces/v1/namespace.proto


export interface DeleteNamespaceRequest {
  'name'?: (string);
}

export interface DeleteNamespaceRequest__Output {
  'name': (string);
}
