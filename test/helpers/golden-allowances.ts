// The differences from the reference engine that the replayed golden answers keep: containers
// (test/integration/golden.test.ts) and images, volumes and networks (test/integration/golden-objects.test.ts), each
// with the spec passage that decides it or why berth is left as it is ('left: ...'). The scenarios' own list is
// test/helpers/golden-scenario-allowances.ts; docs/parity.md lists all three (test/unit/parity-doc.test.ts keeps it so).

// Containers.
export interface ContainerAllowance {
  /** Which answers (by their name in the fixture) and versions (inclusive) it applies to. */
  answers: RegExp;
  from: string;
  to: string;
  diffs: string[];
  /** Where the spec says so, or why berth is left as it is. */
  why: string;
}

const SINCE_122_NETWORK_SETTINGS = ['SandboxID', 'HairpinMode', 'LinkLocalIPv6Address', 'LinkLocalIPv6PrefixLen', 'SandboxKey', 'SecondaryIPAddresses', 'SecondaryIPv6Addresses', 'EndpointID', 'GlobalIPv6Address', 'GlobalIPv6PrefixLen', 'IPv6Gateway'];

const INSPECT = /^inspect (created|running|exited)/;
const LIST = /^list/;

export const CONTAINER_ALLOWED: ContainerAllowance[] = [
  // The spec's version markers, where the 20.10 engine sends a field to versions before the one it came with.
  { answers: LIST, from: '1.18', to: '1.21', diffs: ['$[*].ImageID: only in the reference', '$[*].HostConfig: only in the reference', '$[*].NetworkSettings: only in the reference'], why: 'spec, "Container summary": ImageID, HostConfig and NetworkSettings since v1.22' },
  { answers: LIST, from: '1.18', to: '1.23', diffs: ['$[*].State: only in the reference', '$[*].Mounts: only in the reference'], why: 'spec, "Container summary": State since v1.24, Mounts since v1.24' },
  { answers: INSPECT, from: '1.18', to: '1.21', diffs: ['$.State.Status: only in the reference', '$.State.Dead: only in the reference'], why: 'spec, "Container inspect result", State object: since v1.22 also Dead and Status' },
  { answers: INSPECT, from: '1.18', to: '1.21', diffs: SINCE_122_NETWORK_SETTINGS.map((f) => `$.NetworkSettings.${f}: only in the reference`), why: 'spec, "Container inspect result", NetworkSettings: these since v1.22' },
  { answers: INSPECT, from: '1.21', to: '1.21', diffs: ['$.NetworkSettings.Networks: only in the reference'], why: 'spec, "Container inspect result", NetworkSettings: Networks since v1.22' },
  { answers: /^inspect \w+ with sizes$/, from: '1.21', to: '1.21', diffs: ['$.SizeRw: only in the reference', '$.SizeRootFs: only in the reference'], why: 'spec, "Container inspect result": SizeRw and SizeRootFs since v1.22; "Inspect a container": size since v1.22' },
  // HostConfig fields with a Since column in the spec's table (those the reference sends even when unset; it leaves
  // Tmpfs, Sysctls and StorageOpt out then).
  ...(
    [
      ['1.18', '1.18', ['CpuPeriod', 'CpuQuota', 'CpusetMems', 'BlkioWeight', 'OomKillDisable'], 'v1.19'],
      ['1.18', '1.19', ['MemorySwappiness', 'GroupAdd'], 'v1.20'],
      ['1.18', '1.21', ['MemoryReservation', 'KernelMemory', 'BlkioWeightDevice', 'BlkioDeviceReadBps', 'BlkioDeviceWriteBps', 'BlkioDeviceReadIOps', 'BlkioDeviceWriteIOps', 'OomScoreAdj', 'DnsOptions', 'VolumeDriver', 'ShmSize'], 'v1.22'],
      ['1.18', '1.23', ['CpuPercent', 'IOMaximumBandwidth', 'IOMaximumIOps', 'PidsLimit', 'UsernsMode'], 'v1.24'],
    ] as const
  ).map(([from, to, fields, since]) => ({ answers: INSPECT, from, to, diffs: fields.map((f) => `$.HostConfig.${f}: only in the reference`), why: `spec, "HostConfig" table: Since ${since}` })),
  // ... and where it drops a field the spec still has.
  { answers: INSPECT, from: '1.18', to: '1.20', diffs: ['$.ExecDriver: only in berth'], why: 'spec, "Container inspect result": ExecDriver string (present v1.18 to v1.20 only)' },
  { answers: INSPECT, from: '1.18', to: '1.20', diffs: ['$.NetworkSettings.PortMapping: only in berth'], why: 'spec, "Container inspect result", NetworkSettings: PortMapping (v1.18 to v1.20)' },
  { answers: INSPECT, from: '1.18', to: '1.19', diffs: ['$.Config.PortSpecs: only in berth'], why: 'spec, "Container configuration": in v1.18 and v1.19 also PortSpecs (null)' },
];

// Images, volumes, networks.
export interface ObjectAllowance {
  area: string;
  /** Which answers (by their name in the fixture) and versions (inclusive) it applies to. */
  answers: RegExp;
  from: string;
  to: string;
  diffs: string[];
  /** Where the spec says so, or why berth is left as it is. */
  why: string;
}

const IMAGE_LIST = /^list/;
const VOLUME = /^(create|create unlabelled|inspect|inspect unlabelled)$/;
const VOLUME_LIST = /^list(?! by driver)/; // list by driver: 0 items in the reference (see below)
const NETWORK = /^(list.*|inspect|inspect by id)$/;
const each = (prefix: string, fields: string[], what = 'only in the reference') => fields.map((f) => `${prefix}.${f}: ${what}`);

export const OBJECT_ALLOWED: ObjectAllowance[] = [
  // Images.
  { area: 'images', answers: IMAGE_LIST, from: '1.18', to: '1.24', diffs: ['$[*].ParentId: only in the reference'], why: 'spec, "Image summary (list item)": "ParentId string (absent for root images)" (20.10 sends "")' },
  { area: 'images', answers: IMAGE_LIST, from: '1.18', to: '1.18', diffs: ['$[*].Labels: only in the reference'], why: 'spec, "Image summary (list item)": "Labels object (since v1.19)"' },
  { area: 'images', answers: /^history$/, from: '1.18', to: '1.18', diffs: each('$[*]', ['Comment', 'Size', 'Tags']), why: 'spec, "Image history item": "since v1.19 Tags (array of string or null), Size integer, Comment string"' },
  {
    area: 'images',
    answers: /^tag bad repo$/,
    from: '1.18',
    to: '1.24',
    diffs: ['status: 500 in the reference, 400 in berth'],
    why: 'spec, "Tag": "Codes: 201, 400, 404, 409, 500" and "Errors": "400 bad parameter"; an invalid repository name is the bad parameter (20.10 answers 500 with the same message)',
  },
  // Volumes.
  { area: 'volumes', answers: VOLUME, from: '1.21', to: '1.23', diffs: each('$[*]', ['Labels', 'Scope']), why: 'spec, "Volume": "Labels object (since v1.24)", "Scope ... (since v1.24)"' },
  { area: 'volumes', answers: VOLUME_LIST, from: '1.21', to: '1.23', diffs: each('$.Volumes[*]', ['Labels', 'Scope']), why: 'spec, "Volume": Labels and Scope since v1.24' },
  {
    area: 'volumes',
    answers: /^list by driver$/,
    from: '1.24',
    to: '1.24',
    diffs: ['$.Volumes: 0 items in the reference, 2 in berth: [] vs [{"CreatedAt":"<time>","Name":"g2-vol-124","Driver":"local","Mountpoint":"<path>","Labels":{"g2":"yes"},"Scope":"local","Options":null},{"CreatedAt":"<time>","Name":"g2-vol-124-b","Driver":"local","Mountpoint":"<path>","Labels":null,"Scope":"local","Options":null}]'],
    why: 'spec, "Volumes", List: "since v1.24 ... driver=<volume-driver-name> (all or part)"; the fixture asks for driver=loc, which 20.10 matches only in full',
  },
  // Networks.
  { area: 'networks', answers: /^list(?! builtin)/, from: '1.21', to: '1.24', diffs: ['$[*].Containers.{user}.Name: only in the reference'], why: 'spec, "Network": "Containers object mapping container id to {Name (inspect only), EndpointID, MacAddress, IPv4Address, IPv6Address}"' },
  { area: 'networks', answers: /^remove$/, from: '1.22', to: '1.22', diffs: ['status: 204 in the reference, 200 in berth'], why: 'spec, "Networks", Remove: "response 200 in v1.22, 204 in v1.24"' },
  {
    area: 'networks',
    answers: /^remove$/,
    from: '1.22',
    to: '1.22',
    diffs: ['status: 204 in the reference, 200 in berth'],
    why: 'spec, "Remove DELETE /networks/(id or name)": "response 200 in v1.22, 204 in v1.24" (at v1.21 and v1.23, not shown, berth answers the reference\'s 204)',
  },
  { area: 'networks', answers: NETWORK, from: '1.21', to: '1.23', diffs: each('$[*]', ['EnableIPv6', 'Internal', 'Labels']), why: 'spec, "Network": "EnableIPv6 boolean and Internal boolean (since v1.24)", "Labels object (inspect, since v1.24)"' },
];
