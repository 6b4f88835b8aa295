// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { WriteAction as _containerd_services_content_v1_WriteAction, WriteAction__Output as _containerd_services_content_v1_WriteAction__Output } from '../../../../containerd/services/content/v1/WriteAction';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface WriteContentResponse {
  'action'?: (_containerd_services_content_v1_WriteAction);
  'started_at'?: (_google_protobuf_Timestamp | null);
  'updated_at'?: (_google_protobuf_Timestamp | null);
  'offset'?: (number | string | Long);
  'total'?: (number | string | Long);
  'digest'?: (string);
}

export interface WriteContentResponse__Output {
  'action': (_containerd_services_content_v1_WriteAction__Output);
  'started_at': (_google_protobuf_Timestamp__Output | null);
  'updated_at': (_google_protobuf_Timestamp__Output | null);
  'offset': (string);
  'total': (string);
  'digest': (string);
}
