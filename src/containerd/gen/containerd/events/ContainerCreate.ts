// Original file: github.com/containerd/containerd/api/events/container.proto

import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from '../../google/protobuf/Any';

export interface _containerd_events_ContainerCreate_Runtime {
  'name'?: (string);
  'options'?: (_google_protobuf_Any | null);
}

export interface _containerd_events_ContainerCreate_Runtime__Output {
  'name': (string);
  'options': (_google_protobuf_Any__Output | null);
}

export interface ContainerCreate {
  'id'?: (string);
  'image'?: (string);
  'runtime'?: (_containerd_events_ContainerCreate_Runtime | null);
}

export interface ContainerCreate__Output {
  'id': (string);
  'image': (string);
  'runtime': (_containerd_events_ContainerCreate_Runtime__Output | null);
}
