// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';

export interface WaitResponse {
  'exit_status'?: (number);
  'exited_at'?: (_google_protobuf_Timestamp | null);
}

export interface WaitResponse__Output {
  'exit_status': (number);
  'exited_at': (_google_protobuf_Timestamp__Output | null);
}
