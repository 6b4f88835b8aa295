// Original file: github.com/containerd/containerd/api/services/containers/v1/containers.proto

import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from '../../../../google/protobuf/Any';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';

export interface _containerd_services_containers_v1_Container_Runtime {
  'name'?: (string);
  'options'?: (_google_protobuf_Any | null);
}

export interface _containerd_services_containers_v1_Container_Runtime__Output {
  'name': (string);
  'options': (_google_protobuf_Any__Output | null);
}

export interface Container {
  'id'?: (string);
  'labels'?: ({[key: string]: string});
  'image'?: (string);
  'runtime'?: (_containerd_services_containers_v1_Container_Runtime | null);
  'spec'?: (_google_protobuf_Any | null);
  'snapshotter'?: (string);
  'snapshot_key'?: (string);
  'created_at'?: (_google_protobuf_Timestamp | null);
  'updated_at'?: (_google_protobuf_Timestamp | null);
  'extensions'?: ({[key: string]: _google_protobuf_Any});
}

export interface Container__Output {
  'id': (string);
  'labels': ({[key: string]: string});
  'image': (string);
  'runtime': (_containerd_services_containers_v1_Container_Runtime__Output | null);
  'spec': (_google_protobuf_Any__Output | null);
  'snapshotter': (string);
  'snapshot_key': (string);
  'created_at': (_google_protobuf_Timestamp__Output | null);
  'updated_at': (_google_protobuf_Timestamp__Output | null);
  'extensions': ({[key: string]: _google_protobuf_Any__Output});
}
