// Original file: github.com/containerd/containerd/api/types/descriptor.proto

import type { Long } from '@grpc/proto-loader';

export interface Descriptor {
  'media_type'?: (string);
  'digest'?: (string);
  'size'?: (number | string | Long);
  'annotations'?: ({[key: string]: string});
}

export interface Descriptor__Output {
  'media_type': (string);
  'digest': (string);
  'size': (string);
  'annotations': ({[key: string]: string});
}
