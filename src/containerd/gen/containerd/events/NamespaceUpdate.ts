// Original file: github.com/containerd/containerd/api/events/namespace.proto


export interface NamespaceUpdate {
  'name'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface NamespaceUpdate__Output {
  'name': (string);
  'labels': ({[key: string]: string});
}
