// Original file: github.com/containerd/containerd/runtime/v2/runc/options/oci.proto


export interface CheckpointOptions {
  'exit'?: (boolean);
  'open_tcp'?: (boolean);
  'external_unix_sockets'?: (boolean);
  'terminal'?: (boolean);
  'file_locks'?: (boolean);
  'empty_namespaces'?: (string)[];
  'cgroups_mode'?: (string);
  'image_path'?: (string);
  'work_path'?: (string);
}

export interface CheckpointOptions__Output {
  'exit': (boolean);
  'open_tcp': (boolean);
  'external_unix_sockets': (boolean);
  'terminal': (boolean);
  'file_locks': (boolean);
  'empty_namespaces': (string)[];
  'cgroups_mode': (string);
  'image_path': (string);
  'work_path': (string);
}
