// berth against the reference engine's answers (test/golden/containers/<version>.json, captured from Docker Engine
// 20.10 by scripts/capture-golden.sh): the same requests at every version 1.18 ... 1.24, the same keys at every level,
// the same JSON types, the same values except the instance-specific ones (test/helpers/golden.ts normalise()).
// Where the spec is explicit about a version (a `since vX` or `vA to vB only` marker) and the 20.10 engine is not
// (it sends newer fields to old versions and drops a few old ones), berth follows the spec: each such difference is
// listed in test/helpers/golden-allowances.ts (CONTAINER_ALLOWED) with the spec passage it comes from, and must show up
// exactly as listed.
import type { TestBerth, TestResponse } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { addImageIds, fillPath, GoldenAnswer, Ids, jsonDiff, loadGolden, normalise } from '../helpers/golden';
import { CONTAINER_ALLOWED as ALLOWED } from '../helpers/golden-allowances';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const VERSIONS = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];

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
