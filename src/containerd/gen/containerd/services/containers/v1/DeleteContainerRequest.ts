// Original file: github.com/containerd/containerd/api/services/containers/v1/containers.proto


export interface DeleteContainerRequest {
  'id'?: (string);
}

export interface DeleteContainerRequest__Output {
  'id': (string);
}
