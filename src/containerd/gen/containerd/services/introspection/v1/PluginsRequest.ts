// Original file: github.com/containerd/containerd/api/services/introspection/v1/introspection.proto


export interface PluginsRequest {
  'filters'?: (string)[];
}

export interface PluginsRequest__Output {
  'filters': (string)[];
}
