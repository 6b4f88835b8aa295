// Original file: github.com/containerd/cgroups/v2/stats/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface MemoryStat {
  'anon'?: (number | string | Long);
  'file'?: (number | string | Long);
  'kernel_stack'?: (number | string | Long);
  'slab'?: (number | string | Long);
  'sock'?: (number | string | Long);
  'shmem'?: (number | string | Long);
  'file_mapped'?: (number | string | Long);
  'file_dirty'?: (number | string | Long);
  'file_writeback'?: (number | string | Long);
  'anon_thp'?: (number | string | Long);
  'inactive_anon'?: (number | string | Long);
  'active_anon'?: (number | string | Long);
  'inactive_file'?: (number | string | Long);
  'active_file'?: (number | string | Long);
  'unevictable'?: (number | string | Long);
  'slab_reclaimable'?: (number | string | Long);
  'slab_unreclaimable'?: (number | string | Long);
  'pgfault'?: (number | string | Long);
  'pgmajfault'?: (number | string | Long);
  'workingset_refault'?: (number | string | Long);
  'workingset_activate'?: (number | string | Long);
  'workingset_nodereclaim'?: (number | string | Long);
  'pgrefill'?: (number | string | Long);
  'pgscan'?: (number | string | Long);
  'pgsteal'?: (number | string | Long);
  'pgactivate'?: (number | string | Long);
  'pgdeactivate'?: (number | string | Long);
  'pglazyfree'?: (number | string | Long);
  'pglazyfreed'?: (number | string | Long);
  'thp_fault_alloc'?: (number | string | Long);
  'thp_collapse_alloc'?: (number | string | Long);
  'usage'?: (number | string | Long);
  'usage_limit'?: (number | string | Long);
  'swap_usage'?: (number | string | Long);
  'swap_limit'?: (number | string | Long);
}

export interface MemoryStat__Output {
  'anon': (string);
  'file': (string);
  'kernel_stack': (string);
  'slab': (string);
  'sock': (string);
  'shmem': (string);
  'file_mapped': (string);
  'file_dirty': (string);
  'file_writeback': (string);
  'anon_thp': (string);
  'inactive_anon': (string);
  'active_anon': (string);
  'inactive_file': (string);
  'active_file': (string);
  'unevictable': (string);
  'slab_reclaimable': (string);
  'slab_unreclaimable': (string);
  'pgfault': (string);
  'pgmajfault': (string);
  'workingset_refault': (string);
  'workingset_activate': (string);
  'workingset_nodereclaim': (string);
  'pgrefill': (string);
  'pgscan': (string);
  'pgsteal': (string);
  'pgactivate': (string);
  'pgdeactivate': (string);
  'pglazyfree': (string);
  'pglazyfreed': (string);
  'thp_fault_alloc': (string);
  'thp_collapse_alloc': (string);
  'usage': (string);
  'usage_limit': (string);
  'swap_usage': (string);
  'swap_limit': (string);
}
