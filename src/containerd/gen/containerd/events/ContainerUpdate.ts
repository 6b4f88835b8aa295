// Original file: github.com/containerd/containerd/api/events/container.proto


export interface ContainerUpdate {
  'id'?: (string);
  'image'?: (string);
  'labels'?: ({[key: string]: string});
  'snapshot_key'?: (string);
}

export interface ContainerUpdate__Output {
  'id': (string);
  'image': (string);
  'labels': ({[key: string]: string});
  'snapshot_key': (string);
}
