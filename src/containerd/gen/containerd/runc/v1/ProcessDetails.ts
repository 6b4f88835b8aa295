// Original file: github.com/containerd/containerd/runtime/v2/runc/options/oci.proto


export interface ProcessDetails {
  'exec_id'?: (string);
}

export interface ProcessDetails__Output {
  'exec_id': (string);
}
