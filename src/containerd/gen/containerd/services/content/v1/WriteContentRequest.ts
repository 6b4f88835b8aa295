// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { WriteAction as _containerd_services_content_v1_WriteAction, WriteAction__Output as _containerd_services_content_v1_WriteAction__Output } from '../../../../containerd/services/content/v1/WriteAction';
import type { Long } from '@grpc/proto-loader';

export interface WriteContentRequest {
  'action'?: (_containerd_services_content_v1_WriteAction);
  'ref'?: (string);
  'total'?: (number | string | Long);
  'expected'?: (string);
  'offset'?: (number | string | Long);
  'data'?: (Buffer | Uint8Array | string);
  'labels'?: ({[key: string]: string});
}

export interface WriteContentRequest__Output {
  'action': (_containerd_services_content_v1_WriteAction__Output);
  'ref': (string);
  'total': (string);
  'expected': (string);
  'offset': (string);
  'data': (Buffer);
  'labels': ({[key: string]: string});
}
