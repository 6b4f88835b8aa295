// berth against the reference engine's answers (test/golden/containers/<version>.json, captured from Docker Engine
// 20.10 by scripts/capture-golden.sh): the same requests at every version 1.18 ... 1.24, the same keys at every level,
// the same JSON types, the same values except the instance-specific ones (test/helpers/golden.ts normalise()).
// Where the spec is explicit about a version (a `since vX` or `vA to vB only` marker) and the 20.10 engine is not
// (it sends newer fields to old versions and drops a few old ones), berth follows the spec: each such difference is
// listed below with the spec passage it comes from, and must show up exactly as listed.
import type { TestBerth, TestResponse } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { addImageIds, fillPath, GoldenAnswer, Ids, jsonDiff, loadGolden, normalise } from '../helpers/golden';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const VERSIONS = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];

interface Allowance {
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

const ALLOWED: Allowance[] = [
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
  // Not decided by the spec, left as berth has it: with NetworkMode none berth lets runc make a fresh network
  // namespace and has no sandbox or endpoint to name (the engine makes a libnetwork sandbox and a null-driver
  // endpoint, and keeps the sandbox's id and path after the container stops). Inventing ids and a path that refer
  // to nothing would not help a client.
  { answers: /^inspect (running|exited)/, from: '1.22', to: '1.24', diffs: ['$.NetworkSettings.SandboxID: "<network id>" in the reference, "" in berth', '$.NetworkSettings.SandboxKey: "<path>" in the reference, "" in berth'], why: 'left: no sandbox for NetworkMode none' },
  { answers: /^inspect running/, from: '1.22', to: '1.24', diffs: ['$.NetworkSettings.Networks.none.EndpointID: "<network id>" in the reference, "" in berth'], why: 'left: no endpoint for NetworkMode none' },
  { answers: LIST, from: '1.22', to: '1.24', diffs: ['$[*].NetworkSettings.Networks.none.EndpointID: "<network id>" in the reference, "" in berth'], why: 'left: no endpoint for NetworkMode none' },
  // The root filesystem is mounted (by containerd) only while the container runs: berth names no MergedDir that does
  // not exist (the reference names its overlay2 'merged' folder, mounted or not).
  { answers: /^inspect (created|exited)/, from: '1.18', to: '1.24', diffs: ['$.GraphDriver.Data.MergedDir: only in the reference'], why: 'left: no MergedDir while not running' },
];

const num = (v: string): number => Number(v.split('.')[1]);

/** The differences allowed for one answer at one version (list items are compared as $[*]). */
function allowed(v: string, answer: string): string[] {
  const rules = ALLOWED.filter((a) => a.answers.test(answer) && num(v) >= num(a.from) && num(v) <= num(a.to));
  return [...new Set(rules.flatMap((a) => a.diffs))].sort();
}

const collapse = (diffs: string[]): string[] => [...new Set(diffs.map((d) => d.replace(/^\$\[\d+\]/, '$[*]')))].sort();

const replay = (a: GoldenAnswer, ids: Ids): Promise<TestResponse> =>
  b.request(a.request.method, fillPath(a.request.path, ids), a.request.body === undefined ? {} : { body: a.request.body });

describe.each(VERSIONS)('API %s answers like the reference engine', (v) => {
  const golden = loadGolden(v);
  // The reference's ids (in the fixture's bodies) and berth's, both by the setup's names for the containers.
  const refIds: Ids = {};
  const ids: Ids = {};
  const setupAnswers = new Map<string, TestResponse>();

  beforeAll(async () => {
    // The test image's id, in the reference's answers and in berth's.
    const refImage = (golden.answers.find((a) => /^inspect/.test(a.name))?.body as { Image?: string } | undefined)?.Image;
    addImageIds(refIds, 'image', refImage ? { Id: refImage } : undefined);
    addImageIds(ids, 'image', (await b.request('GET', '/v1.24/images/busybox/json')).json());
    for (const step of golden.setup) {
      const r = await replay(step, ids);
      setupAnswers.set(step.name, r);
      if (r.status !== step.status) throw new Error(`${step.name}: ${r.status} ${r.text} (the reference: ${step.status})`);
      const m = /^create (\w+)$/.exec(step.name);
      if (m) {
        ids[m[1]] = r.json().Id;
        refIds[m[1]] = (step.body as { Id: string }).Id;
      }
    }
  });

  afterAll(async () => {
    for (const id of Object.values(ids)) await b.request('DELETE', `/v${v}/containers/${id}?force=1`);
  });

  const check = (a: GoldenAnswer, r: TestResponse) => {
    expect({ status: r.status, contentType: r.headers['content-type'] ?? null }).toEqual({ status: a.status, contentType: a.contentType });
    if (a.body === undefined) expect(r.text).toBe(a.text);
    else expect(collapse(jsonDiff(normalise(a.body, refIds), normalise(r.json(), ids)))).toEqual(allowed(v, a.name));
  };

  test.each(golden.setup.map((a) => [a.name, a] as const))('setup: %s', (_name, a) => check(a, setupAnswers.get(a.name)!));

  test.each(golden.answers.map((a) => [a.name, a] as const))('%s', async (_name, a) => check(a, await replay(a, ids)));
});
