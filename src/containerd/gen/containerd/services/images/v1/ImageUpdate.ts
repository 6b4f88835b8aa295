// Original file: github.com/containerd/containerd/api/events/image.proto


export interface ImageUpdate {
  'name'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface ImageUpdate__Output {
  'name': (string);
  'labels': ({[key: string]: string});
}
