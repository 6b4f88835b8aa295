// Original file: github.com/containerd/containerd/api/services/containers/v1/containers.proto


export interface GetContainerRequest {
  'id'?: (string);
}

export interface GetContainerRequest__Output {
  'id': (string);
}
