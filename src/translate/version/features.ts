// The ONLY place that knows how API versions differ. Every difference is a named feature with the version it
// starts at (and, for removed things, the last version that has it). Ask supports(v, feature).

export type ApiVersion = string; // "1.18" ... "1.24"

export const MIN_API_VERSION = '1.18';
export const MAX_API_VERSION = '1.24';
export const DEFAULT_API_VERSION = MAX_API_VERSION;

interface Range {
  since?: string;
  until?: string; // inclusive
}

export const FEATURES = {
  // errors
  JsonErrors: { since: '1.24' },
  // system
  // build
  BuildArgs: { since: '1.21' },
  BuildShmSize: { since: '1.22' },
  BuildLabels: { since: '1.23' },
  // containers: list
  ListImageID: { since: '1.22' },
  ListHostConfig: { since: '1.22' },
  ListNetworkSettings: { since: '1.22' },
  ListState: { since: '1.24' },
  ListMounts: { since: '1.24' },
  ListFilterStatusCreated: { since: '1.20' },
  ListFilterStatusDead: { since: '1.22' },
  ListFilterIsolation: { since: '1.22' },
  ListFilterAncestorEtc: { since: '1.24' },
  // containers: inspect
  InspectExecDriver: { until: '1.20' },
  InspectMounts: { since: '1.20' },
  InspectVolumesRW: { until: '1.19' },
  InspectStateDeadStatus: { since: '1.22' },
  InspectSize: { since: '1.22' },
  InspectNetworks: { since: '1.22' },
  InspectPortMapping: { until: '1.20' },
  InspectPortsNullWhenStopped: { until: '1.20' },
  InspectConfigOmitsUnsetNetwork: { since: '1.21' },
  InspectConfigResources: { until: '1.19' },
  // HostConfig fields with a `since` in the spec's HostConfig table (see HOST_CONFIG_FIELD_FEATURES)
  HostConfigFieldsSince119: { since: '1.19' },
  HostConfigFieldsSince120: { since: '1.20' },
  HostConfigFieldsSince122: { since: '1.22' },
  HostConfigFieldsSince124: { since: '1.24' },
  ConfigPortSpecs: { until: '1.19' },
  MountNameDriverPropagation: { since: '1.22' },
  // containers: lifecycle (the reference: 204 for a kill of a stopped container before 1.20, 409 from 1.20)
  KillStoppedConflict: { since: '1.20' },
  // containers: create
  CreateHostnameRFC1123: { since: '1.24' },
  CreateResourcesInConfig: { until: '1.18' },
  NamedVolumeBinds: { since: '1.22' },
  CustomNetworks: { since: '1.22' },
  UnlessStopped: { since: '1.22' },
  StopSignal: { since: '1.22' },
  StartHostConfigRemoved: { since: '1.24' },
  Healthcheck: { since: '1.24' },
  // streams
  AttachDetachKeys: { since: '1.24' },
  AttachPausedConflict: { since: '1.24' },
  LogsDetails: { since: '1.24' },
  LogsSince: { since: '1.19' },
  ExecInspectContainer: { until: '1.20' },
  // stats
  StatsPreCPU: { since: '1.19' },
  // The spec gives `network` for v1.18 to v1.20 and `networks` since v1.22: at 1.21, not shown, the reference's
  // `networks` (docker-py's test_get_container_stats_no_stream at 1.21 needs it)
  StatsNetworks: { since: '1.21' },
  StatsPids: { since: '1.24' },
  // the reference names the container in a sample from 1.21 (the spec is silent on name and id)
  StatsNameId: { since: '1.21' },
  // events
  EventsBadFilter400: { since: '1.24' },
  EventsDaemon: { since: '1.24' },
  EventsTypeActionActor: { since: '1.22' },
  // images
  ImageLabels: { since: '1.19' },
  HistoryTagsSizeComment: { since: '1.19' },
  LoadProgressStream: { since: '1.24' },
  AuthIdentityToken: { since: '1.23' },
  // volumes & networks
  VolumeLabelsScope: { since: '1.24' },
  NetworkIPv6Internal: { since: '1.24' },
  // the spec: 'response 200 in v1.22, 204 in v1.24'; 1.21 and 1.23 are not shown there, and the reference answers 204
  NetworkDelete200: { since: '1.22', until: '1.22' },
  NetworkLabels: { since: '1.24' },
  NetworkFilterDriverLabel: { since: '1.24' },
  NetworkPredefined403: { since: '1.24' },
  // update
  UpdateRestartPolicy: { since: '1.24' },
  // archive
  Archive: { since: '1.20' },
  CopyRemoved: { since: '1.24' },
} satisfies Record<string, Range>;

export type Feature = keyof typeof FEATURES;

/**
 * HostConfig fields with a `since` version in the spec's HostConfig table: "absent in earlier versions" (the 20.10
 * reference sends them at every version; the spec is explicit, so it wins). Inspect drops a field its feature lacks.
 */
export const HOST_CONFIG_FIELD_FEATURES: Record<string, Feature> = {
  ...Object.fromEntries(['CpuPeriod', 'CpuQuota', 'CpusetMems', 'BlkioWeight', 'OomKillDisable'].map((f) => [f, 'HostConfigFieldsSince119'])),
  ...Object.fromEntries(['MemorySwappiness', 'GroupAdd'].map((f) => [f, 'HostConfigFieldsSince120'])),
  ...Object.fromEntries(
    ['Tmpfs', 'MemoryReservation', 'KernelMemory', 'BlkioWeightDevice', 'BlkioDeviceReadBps', 'BlkioDeviceWriteBps', 'BlkioDeviceReadIOps', 'BlkioDeviceWriteIOps', 'OomScoreAdj', 'DnsOptions', 'VolumeDriver', 'ShmSize'].map((f) => [f, 'HostConfigFieldsSince122']),
  ),
  ...Object.fromEntries(['CpuPercent', 'IOMaximumBandwidth', 'IOMaximumIOps', 'PidsLimit', 'UsernsMode', 'Sysctls', 'StorageOpt'].map((f) => [f, 'HostConfigFieldsSince124'])),
};

/** "1.24" as 1_024_000 (each part below 1000, at most three parts); -1 for anything else. */
function versionKey(s: string): number {
  let key = 0;
  let part = 0;
  let parts = 1;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (!digits || ++parts > 3) return -1;
      key = key * 1000 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
    } else return -1;
  }
  if (!digits) return -1;
  key = key * 1000 + part;
  for (; parts < 3; parts++) key *= 1000;
  return key;
}

/** Compares "1.9" < "1.18" numerically. */
export function compareVersions(a: string, b: string): number {
  // (the common case without allocating: supports() runs several times per container of a list)
  const ka = versionKey(a);
  const kb = versionKey(b);
  if (ka >= 0 && kb >= 0) return ka === kb ? 0 : ka < kb ? -1 : 1;
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

export function supports(v: ApiVersion, feature: Feature): boolean {
  const r: Range = FEATURES[feature];
  if (r.since && compareVersions(v, r.since) < 0) return false;
  if (r.until && compareVersions(v, r.until) > 0) return false;
  return true;
}
