// Original file: github.com/containerd/cgroups/stats/v1/metrics.proto

import type { MemoryEntry as _io_containerd_cgroups_v1_MemoryEntry, MemoryEntry__Output as _io_containerd_cgroups_v1_MemoryEntry__Output } from '../../../../io/containerd/cgroups/v1/MemoryEntry';
import type { Long } from '@grpc/proto-loader';

export interface MemoryStat {
  'cache'?: (number | string | Long);
  'rss'?: (number | string | Long);
  'rss_huge'?: (number | string | Long);
  'mapped_file'?: (number | string | Long);
  'dirty'?: (number | string | Long);
  'writeback'?: (number | string | Long);
  'pg_pg_in'?: (number | string | Long);
  'pg_pg_out'?: (number | string | Long);
  'pg_fault'?: (number | string | Long);
  'pg_maj_fault'?: (number | string | Long);
  'inactive_anon'?: (number | string | Long);
  'active_anon'?: (number | string | Long);
  'inactive_file'?: (number | string | Long);
  'active_file'?: (number | string | Long);
  'unevictable'?: (number | string | Long);
  'hierarchical_memory_limit'?: (number | string | Long);
  'hierarchical_swap_limit'?: (number | string | Long);
  'total_cache'?: (number | string | Long);
  'total_rss'?: (number | string | Long);
  'total_rss_huge'?: (number | string | Long);
  'total_mapped_file'?: (number | string | Long);
  'total_dirty'?: (number | string | Long);
  'total_writeback'?: (number | string | Long);
  'total_pg_pg_in'?: (number | string | Long);
  'total_pg_pg_out'?: (number | string | Long);
  'total_pg_fault'?: (number | string | Long);
  'total_pg_maj_fault'?: (number | string | Long);
  'total_inactive_anon'?: (number | string | Long);
  'total_active_anon'?: (number | string | Long);
  'total_inactive_file'?: (number | string | Long);
  'total_active_file'?: (number | string | Long);
  'total_unevictable'?: (number | string | Long);
  'usage'?: (_io_containerd_cgroups_v1_MemoryEntry | null);
  'swap'?: (_io_containerd_cgroups_v1_MemoryEntry | null);
  'kernel'?: (_io_containerd_cgroups_v1_MemoryEntry | null);
  'kernel_tcp'?: (_io_containerd_cgroups_v1_MemoryEntry | null);
}

export interface MemoryStat__Output {
  'cache': (string);
  'rss': (string);
  'rss_huge': (string);
  'mapped_file': (string);
  'dirty': (string);
  'writeback': (string);
  'pg_pg_in': (string);
  'pg_pg_out': (string);
  'pg_fault': (string);
  'pg_maj_fault': (string);
  'inactive_anon': (string);
  'active_anon': (string);
  'inactive_file': (string);
  'active_file': (string);
  'unevictable': (string);
  'hierarchical_memory_limit': (string);
  'hierarchical_swap_limit': (string);
  'total_cache': (string);
  'total_rss': (string);
  'total_rss_huge': (string);
  'total_mapped_file': (string);
  'total_dirty': (string);
  'total_writeback': (string);
  'total_pg_pg_in': (string);
  'total_pg_pg_out': (string);
  'total_pg_fault': (string);
  'total_pg_maj_fault': (string);
  'total_inactive_anon': (string);
  'total_active_anon': (string);
  'total_inactive_file': (string);
  'total_active_file': (string);
  'total_unevictable': (string);
  'usage': (_io_containerd_cgroups_v1_MemoryEntry__Output | null);
  'swap': (_io_containerd_cgroups_v1_MemoryEntry__Output | null);
  'kernel': (_io_containerd_cgroups_v1_MemoryEntry__Output | null);
  'kernel_tcp': (_io_containerd_cgroups_v1_MemoryEntry__Output | null);
}
