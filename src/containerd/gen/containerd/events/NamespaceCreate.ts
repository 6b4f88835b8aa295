// Original file: github.com/containerd/containerd/api/events/namespace.proto


export interface NamespaceCreate {
  'name'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface NamespaceCreate__Output {
  'name': (string);
  'labels': ({[key: string]: string});
}
