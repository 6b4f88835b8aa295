// Original file: github.com/containerd/containerd/api/services/introspection/v1/introspection.proto


export interface ServerResponse {
  'uuid'?: (string);
}

export interface ServerResponse__Output {
  'uuid': (string);
}
