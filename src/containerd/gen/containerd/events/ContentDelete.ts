// Original file: github.com/containerd/containerd/api/events/content.proto


export interface ContentDelete {
  'digest'?: (string);
}

export interface ContentDelete__Output {
  'digest': (string);
}
