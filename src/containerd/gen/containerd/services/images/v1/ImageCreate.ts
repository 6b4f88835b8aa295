// Original file: github.com/containerd/containerd/api/events/image.proto


export interface ImageCreate {
  'name'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface ImageCreate__Output {
  'name': (string);
  'labels': ({[key: string]: string});
}
