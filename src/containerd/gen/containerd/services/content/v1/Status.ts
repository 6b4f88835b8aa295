// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface Status {
  'started_at'?: (_google_protobuf_Timestamp | null);
  'updated_at'?: (_google_protobuf_Timestamp | null);
  'ref'?: (string);
  'offset'?: (number | string | Long);
  'total'?: (number | string | Long);
  'expected'?: (string);
}

export interface Status__Output {
  'started_at': (_google_protobuf_Timestamp__Output | null);
  'updated_at': (_google_protobuf_Timestamp__Output | null);
  'ref': (string);
  'offset': (string);
  'total': (string);
  'expected': (string);
}
