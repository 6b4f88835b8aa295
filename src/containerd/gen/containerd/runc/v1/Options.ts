// Original file: github.com/containerd/containerd/runtime/v2/runc/options/oci.proto


export interface Options {
  'no_pivot_root'?: (boolean);
  'no_new_keyring'?: (boolean);
  'shim_cgroup'?: (string);
  'io_uid'?: (number);
  'io_gid'?: (number);
  'binary_name'?: (string);
  'root'?: (string);
  'criu_path'?: (string);
  'systemd_cgroup'?: (boolean);
  'criu_image_path'?: (string);
  'criu_work_path'?: (string);
}

export interface Options__Output {
  'no_pivot_root': (boolean);
  'no_new_keyring': (boolean);
  'shim_cgroup': (string);
  'io_uid': (number);
  'io_gid': (number);
  'binary_name': (string);
  'root': (string);
  'criu_path': (string);
  'systemd_cgroup': (boolean);
  'criu_image_path': (string);
  'criu_work_path': (string);
}
