// Original file: github.com/containerd/containerd/api/services/snapshots/v1/snapshots.proto

import type { Kind as _containerd_services_snapshots_v1_Kind, Kind__Output as _containerd_services_snapshots_v1_Kind__Output } from '../../../../containerd/services/snapshots/v1/Kind';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';

export interface Info {
  'name'?: (string);
  'parent'?: (string);
  'kind'?: (_containerd_services_snapshots_v1_Kind);
  'created_at'?: (_google_protobuf_Timestamp | null);
  'updated_at'?: (_google_protobuf_Timestamp | null);
  'labels'?: ({[key: string]: string});
}

export interface Info__Output {
  'name': (string);
  'parent': (string);
  'kind': (_containerd_services_snapshots_v1_Kind__Output);
  'created_at': (_google_protobuf_Timestamp__Output | null);
  'updated_at': (_google_protobuf_Timestamp__Output | null);
  'labels': ({[key: string]: string});
}
