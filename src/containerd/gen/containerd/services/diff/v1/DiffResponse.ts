// Original file: github.com/containerd/containerd/api/services/diff/v1/diff.proto

import type { Descriptor as _containerd_types_Descriptor, Descriptor__Output as _containerd_types_Descriptor__Output } from '../../../../containerd/types/Descriptor';

export interface DiffResponse {
  'diff'?: (_containerd_types_Descriptor | null);
}

export interface DiffResponse__Output {
  'diff': (_containerd_types_Descriptor__Output | null);
}
