// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto

import type { Descriptor as _containerd_types_Descriptor, Descriptor__Output as _containerd_types_Descriptor__Output } from '../../../../containerd/types/Descriptor';

export interface CheckpointTaskResponse {
  'descriptors'?: (_containerd_types_Descriptor)[];
}

export interface CheckpointTaskResponse__Output {
  'descriptors': (_containerd_types_Descriptor__Output)[];
}
