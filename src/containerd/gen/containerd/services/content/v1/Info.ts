// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface Info {
  'digest'?: (string);
  'size'?: (number | string | Long);
  'created_at'?: (_google_protobuf_Timestamp | null);
  'updated_at'?: (_google_protobuf_Timestamp | null);
  'labels'?: ({[key: string]: string});
}

export interface Info__Output {
  'digest': (string);
  'size': (string);
  'created_at': (_google_protobuf_Timestamp__Output | null);
  'updated_at': (_google_protobuf_Timestamp__Output | null);
  'labels': ({[key: string]: string});
}
