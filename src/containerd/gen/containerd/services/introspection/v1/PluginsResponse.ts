// Original file: github.com/containerd/containerd/api/services/introspection/v1/introspection.proto

import type { Plugin as _containerd_services_introspection_v1_Plugin, Plugin__Output as _containerd_services_introspection_v1_Plugin__Output } from '../../../../containerd/services/introspection/v1/Plugin';

export interface PluginsResponse {
  'plugins'?: (_containerd_services_introspection_v1_Plugin)[];
}

export interface PluginsResponse__Output {
  'plugins': (_containerd_services_introspection_v1_Plugin__Output)[];
}
