// Original file: github.com/containerd/containerd/api/events/namespace.proto


export interface NamespaceDelete {
  'name'?: (string);
}

export interface NamespaceDelete__Output {
  'name': (string);
}
