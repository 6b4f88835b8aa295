// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto

import type { Mount as _containerd_types_Mount, Mount__Output as _containerd_types_Mount__Output } from '../../../../containerd/types/Mount';
import type { Descriptor as _containerd_types_Descriptor, Descriptor__Output as _containerd_types_Descriptor__Output } from '../../../../containerd/types/Descriptor';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from '../../../../google/protobuf/Any';

export interface CreateTaskRequest {
  'container_id'?: (string);
  'rootfs'?: (_containerd_types_Mount)[];
  'stdin'?: (string);
  'stdout'?: (string);
  'stderr'?: (string);
  'terminal'?: (boolean);
  'checkpoint'?: (_containerd_types_Descriptor | null);
  'options'?: (_google_protobuf_Any | null);
  'runtime_path'?: (string);
}

export interface CreateTaskRequest__Output {
  'container_id': (string);
  'rootfs': (_containerd_types_Mount__Output)[];
  'stdin': (string);
  'stdout': (string);
  'stderr': (string);
  'terminal': (boolean);
  'checkpoint': (_containerd_types_Descriptor__Output | null);
  'options': (_google_protobuf_Any__Output | null);
  'runtime_path': (string);
}
