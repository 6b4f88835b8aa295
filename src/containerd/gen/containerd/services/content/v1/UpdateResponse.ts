// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { Info as _containerd_services_content_v1_Info, Info__Output as _containerd_services_content_v1_Info__Output } from '../../../../containerd/services/content/v1/Info';

export interface UpdateResponse {
  'info'?: (_containerd_services_content_v1_Info | null);
}

export interface UpdateResponse__Output {
  'info': (_containerd_services_content_v1_Info__Output | null);
}
