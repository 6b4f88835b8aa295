// Original file: github.com/containerd/containerd/api/events/task.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface TaskExit {
  'container_id'?: (string);
  'id'?: (string);
  'pid'?: (number);
  'exit_status'?: (number);
  'exited_at'?: (_google_protobuf_Timestamp | null);
}

export interface TaskExit__Output {
  'container_id': (string);
  'id': (string);
  'pid': (number);
  'exit_status': (number);
  'exited_at': (_google_protobuf_Timestamp__Output | null);
}
