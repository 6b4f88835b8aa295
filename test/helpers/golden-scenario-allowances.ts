// The differences from the reference engine that berth keeps in the golden scenarios (test/golden/scenarios, run by
// test/integration/golden-scenarios.test.ts and counted by bench/parity.ts): each with the versions it holds for and
// why, as the spec passage that decides it, as "berth answers 4xx where the reference answers 5xx", as "left" (known,
// left as it is) or as "not yet" with what is missing.
import { jsonDiff } from './golden';
import type { Observation } from './golden-scenarios';

export interface Allowance {
  /** Which observations (by name) and versions (inclusive). */
  names: RegExp;
  from: string;
  to: string;
  diffs: string[];
  why: string;
}

const INSPECT = /^(bare|minimal|cli|volumes): inspect/;
const LIST = /^(cli|volumes): list$/;
const HOST_CONFIG_SINCE: [string, string, string[], string][] = [
  ['1.18', '1.18', ['CpuPeriod', 'CpuQuota', 'CpusetMems', 'BlkioWeight', 'OomKillDisable'], 'v1.19'],
  ['1.18', '1.19', ['MemorySwappiness', 'GroupAdd'], 'v1.20'],
  ['1.18', '1.20', ['MemoryReservation', 'KernelMemory', 'BlkioWeightDevice', 'BlkioDeviceReadBps', 'BlkioDeviceWriteBps', 'BlkioDeviceReadIOps', 'BlkioDeviceWriteIOps', 'OomScoreAdj', 'DnsOptions', 'VolumeDriver', 'ShmSize'], 'v1.22'],
  ['1.18', '1.22', ['CpuPercent', 'IOMaximumBandwidth', 'IOMaximumIOps', 'PidsLimit', 'UsernsMode'], 'v1.24'],
];
const SINCE_122_NETWORK_SETTINGS = ['SandboxID', 'HairpinMode', 'LinkLocalIPv6Address', 'LinkLocalIPv6PrefixLen', 'SandboxKey', 'SecondaryIPAddresses', 'SecondaryIPv6Addresses', 'EndpointID', 'GlobalIPv6Address', 'GlobalIPv6PrefixLen', 'IPv6Gateway'];
const only = (where: 'reference' | 'berth', prefix: string, fields: string[]) => fields.map((f) => `${prefix}.${f}: only in ${where === 'reference' ? 'the reference' : 'berth'}`);

export const ALLOWED: Allowance[] = [
  // /version and /info: the spec's own field lists, which the reference no longer sends.
  { names: /^version$/, from: '1.18', to: '1.24', diffs: ['$.Experimental: only in berth'], why: 'spec, "Version information": "... BuildTime (strings), Experimental (boolean)"' },
  { names: /^info$/, from: '1.18', to: '1.24', diffs: only('berth', '$', ['SystemStatus', 'InitSha1', 'InitPath', 'ClusterStore', 'ClusterAdvertise']), why: 'spec, "System information (info)": ClusterStore, InitPath, InitSha1, SystemStatus (and ClusterAdvertise with ClusterStore) are listed' },
  // Container inspect: the spec's version markers.
  ...HOST_CONFIG_SINCE.map(([from, to, fields, since]) => ({ names: INSPECT, from, to, diffs: only('reference', '$.HostConfig', fields), why: `spec, "HostConfig" table: Since ${since}` })),
  { names: INSPECT, from: '1.18', to: '1.20', diffs: ['$.ExecDriver: only in berth'], why: 'spec, "Container inspect result": ExecDriver string (present v1.18 to v1.20 only)' },
  { names: INSPECT, from: '1.18', to: '1.20', diffs: ['$.State.Status: only in the reference', '$.State.Dead: only in the reference'], why: 'spec, "Container inspect result", State object: since v1.22 also Dead and Status' },
  { names: INSPECT, from: '1.18', to: '1.19', diffs: ['$.Config.PortSpecs: only in berth'], why: 'spec, "Container configuration": in v1.18 and v1.19 also PortSpecs (null)' },
  { names: INSPECT, from: '1.18', to: '1.20', diffs: ['$.NetworkSettings.PortMapping: only in berth'], why: 'spec, "Container inspect result", NetworkSettings: PortMapping (v1.18 to v1.20)' },
  { names: INSPECT, from: '1.18', to: '1.20', diffs: only('reference', '$.NetworkSettings', SINCE_122_NETWORK_SETTINGS), why: 'spec, "Container inspect result", NetworkSettings: these since v1.22' },
  // Stats.
  { names: /^cli: stats$/, from: '1.18', to: '1.22', diffs: ['$.pids_stats: only in the reference'], why: 'spec, stats: pids_stats since v1.24 (feature StatsPids)' },
  { names: /^cli: stats$/, from: '1.18', to: '1.18', diffs: ['$.precpu_stats: only in the reference'], why: 'spec, stats: "since v1.19 `precpu_stats`" (feature StatsPreCPU)' },
  { names: /^cli: stats$/, from: '1.22', to: '1.24', diffs: ['$.networks: only in berth'], why: 'spec, stats: "networks" since v1.22 (the reference leaves it out for NetworkMode none)' },
  { names: LIST, from: '1.18', to: '1.20', diffs: only('reference', '$[0]', ['ImageID', 'HostConfig', 'NetworkSettings']), why: 'spec, "Container summary": ImageID, HostConfig and NetworkSettings since v1.22' },
  { names: LIST, from: '1.18', to: '1.22', diffs: only('reference', '$[0]', ['State', 'Mounts']), why: 'spec, "Container summary": State since v1.24, Mounts since v1.24' },
  // Statuses.
  { names: /^(minimal: unpause stopped|cli: unpause running)$/, from: '1.18', to: '1.24', diffs: ['status: 500 in the reference, 409 in berth'], why: 'berth answers 4xx where the reference answers 5xx (unpause of a container that is not paused)' },
  { names: /^network create empty name$/, from: '1.22', to: '1.24', diffs: ['status: 500 in the reference, 400 in berth'], why: 'berth answers 4xx where the reference answers 5xx (an empty network name; the spec: "Name string (mandatory)")' },
  { names: /^create invalid hostname$/, from: '1.24', to: '1.24', diffs: ['status: 201 in the reference, 400 in berth'], why: 'spec, create: "Hostname must be a valid RFC 1123 hostname (since v1.24)"' },
  { names: /^events until before since$/, from: '1.18', to: '1.22', diffs: ['status: 400 in the reference, 200 in berth'], why: 'spec, "Monitor events": "Codes: 200, 400 bad parameter (since v1.24), 500"' },
  { names: /^cli: attach bad detachKeys$/, from: '1.18', to: '1.22', diffs: ['status: 400 in the reference, 200 in berth'], why: 'spec, "Attach": "detachKeys (since v1.24...)": before, the parameter does not exist and is ignored' },
  { names: /^network create predefined name$/, from: '1.22', to: '1.22', diffs: ['status: 403 in the reference, 500 in berth'], why: 'spec, "Networks" Create: "403 pre-defined network operation not supported (since v1.24)"' },
  { names: /^network inspect default bridge$/, from: '1.22', to: '1.22', diffs: only('reference', '$', ['EnableIPv6', 'Internal', 'Labels']), why: 'spec, "Network": "EnableIPv6 boolean and Internal boolean (since v1.24)", "Labels object (inspect, since v1.24)"' },
  { names: /^minimal: logs with Upgrade$/, from: '1.18', to: '1.24', diffs: ['status: 200 in the reference, 101 in berth'], why: 'spec, "Get logs": "Response: 101 with the upgrade headers and a raw stream, or 200 when the request had no upgrade header"' },
  // Mounts, GraphDriver, images.
  {
    names: /^volumes: inspect/,
    from: '1.20',
    to: '1.20',
    diffs: [...only('reference', '$.Mounts[0]', ['Name', 'Driver', 'Propagation']), '$.Mounts[1].Propagation: only in the reference', '$.Mounts[2].Propagation: only in the reference'],
    why: 'spec, "Mount object": "since v1.22 also Name string, Driver string, Propagation string"',
  },
  { names: /^image: list$/, from: '1.18', to: '1.24', diffs: ['$[0].ParentId: only in the reference'], why: 'spec, image list: "ParentId string (absent for root images)"' },
  { names: /^image: list$/, from: '1.18', to: '1.18', diffs: ['$[0].Labels: only in the reference'], why: 'spec, image list: "Labels object (since v1.19)"' },
];

const num = (v: string): number => Number(v.split('.')[1]);
const applies = (a: Allowance, v: string, name: string): boolean => a.names.test(name) && num(v) >= num(a.from) && num(v) <= num(a.to);

/** Every difference kept for observation `name` at version `v`, sorted (what differences() must equal). */
export function allowed(v: string, name: string): string[] {
  return [...new Set(ALLOWED.filter((a) => applies(a, v, name)).flatMap((a) => a.diffs))].sort();
}

/**
 * Why a kept difference is kept: `spec` (an explicit passage decides it), `4xx` (berth answers 4xx where the
 * reference answers 5xx), `left` (a known difference left as it is) or `not yet` (to be done).
 */
export type AllowanceKind = 'spec' | '4xx' | 'left' | 'not yet';
export const kindOf = (a: Allowance): AllowanceKind =>
  a.why.startsWith('spec') ? 'spec' : a.why.startsWith('berth answers 4xx') ? '4xx' : a.why.startsWith('left') ? 'left' : 'not yet';

/** The differences of observation `name` at `v` that the rule itself decides (an explicit spec passage, or 4xx for 5xx). */
export function decidedByRule(v: string, name: string): Set<string> {
  return new Set(ALLOWED.filter((a) => applies(a, v, name) && (kindOf(a) === 'spec' || kindOf(a) === '4xx')).flatMap((a) => a.diffs));
}

/** The differences of one observation, as bench/parity.ts counts them (a different status hides the body). */
export function differences(ref: Observation, got: Observation): string[] {
  const out: string[] = [];
  if (ref.status !== got.status) return [`status: ${ref.status} in the reference, ${got.status} in berth`];
  if (ref.contentType !== got.contentType) out.push(`content type: ${ref.contentType} in the reference, ${got.contentType} in berth`);
  if (ref.headers) out.push(...jsonDiff(ref.headers, got.headers ?? {}, 'headers'));
  if (ref.body !== undefined || got.body !== undefined) out.push(...jsonDiff(ref.body ?? null, got.body ?? null));
  else if (ref.text !== got.text) out.push(`text: ${JSON.stringify(ref.text)} in the reference, ${JSON.stringify(got.text)} in berth`);
  // A whole stats sample where the reference has none is named, not spelled out.
  return out.map((d) => d.replace(/^(\$: null null in the reference, object) \{"read".*$/, '$1 <stats>')).sort();
}
