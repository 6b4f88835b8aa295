// Original file: github.com/containerd/containerd/api/services/content/v1/content.proto

import type { Status as _containerd_services_content_v1_Status, Status__Output as _containerd_services_content_v1_Status__Output } from '../../../../containerd/services/content/v1/Status';

export interface StatusResponse {
  'status'?: (_containerd_services_content_v1_Status | null);
}

export interface StatusResponse__Output {
  'status': (_containerd_services_content_v1_Status__Output | null);
}
