// Original file: github.com/containerd/containerd/api/events/container.proto


export interface ContainerDelete {
  'id'?: (string);
}

export interface ContainerDelete__Output {
  'id': (string);
}
