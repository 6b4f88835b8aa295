// Original file: github.com/containerd/containerd/api/types/platform.proto


export interface Platform {
  'os'?: (string);
  'architecture'?: (string);
  'variant'?: (string);
}

export interface Platform__Output {
  'os': (string);
  'architecture': (string);
  'variant': (string);
}
