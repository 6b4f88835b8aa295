// berth against the reference engine's answers for images, volumes and networks (test/golden/<area>/<version>.json,
// captured from Docker Engine 20.10 by scripts/capture-golden-objects.sh): the same requests at every version that
// has the endpoint (images 1.18 ... 1.24, volumes and networks 1.21 ... 1.24), compared as test/integration/golden.test.ts
// compares containers: keys at every level, JSON types, values except the instance-specific ones
// (test/helpers/golden.ts normalise()). Both engines start from the same two images (test/helpers/golden-objects.ts).
// Each allowed difference says where the spec decides it, or why berth is left as it is ('left: ...'), and must
// show up exactly as listed.
import { startTestBerth, TestBerth, TestResponse } from '../helpers/berth';
import { addImageIds, sameTestImage, fillPath, GoldenAnswer, GoldenRequest, Ids, jsonDiff, loadGolden, normalise } from '../helpers/golden';
import { loadGoldenImages } from '../helpers/golden-objects';
import { OBJECT_ALLOWED as ALLOWED } from '../helpers/golden-allowances';

let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth();
  await loadGoldenImages(b);
});
afterAll(async () => {
  await b?.close();
});

const AREAS: Record<string, string[]> = {
  images: ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'],
  volumes: ['1.21', '1.22', '1.23', '1.24'],
  networks: ['1.21', '1.22', '1.23', '1.24'],
};

const num = (v: string): number => Number(v.split('.')[1]);

/**
 * The differences allowed for one answer at one version. Rules on `$[*].` name a field of each list item, and the
 * same field of an inspected object (`$.`) when the answer is one object.
 */
function allowed(area: string, v: string, answer: string, isArray: boolean): string[] {
  const rules = ALLOWED.filter((a) => a.area === area && a.answers.test(answer) && num(v) >= num(a.from) && num(v) <= num(a.to));
  const diffs = rules.flatMap((a) => a.diffs).map((d) => (isArray ? d : d.replace(/^\$\[\*\]\./, '$.')));
  return [...new Set(diffs)].sort();
}

const collapse = (diffs: string[]): string[] => [...new Set(diffs.map((d) => d.replace(/^\$(\.Volumes)?\[\d+\]/, '$$$1[*]')))].sort();

const send = (r: GoldenRequest, ids: Ids, refIds: Ids = {}): Promise<TestResponse> =>
  b.request(r.method, fillPath(r.path, ids, refIds), r.body === undefined ? {} : { body: r.body });

describe.each(Object.entries(AREAS).flatMap(([area, versions]) => versions.map((v) => [area, v] as const)))('%s at API %s answer like the reference engine', (area, v) => {
  const golden = loadGolden(v, area);
  // The reference's ids (in the fixture's bodies) and berth's, both by the setup's names for them (user, net).
  const refIds: Ids = {};
  const ids: Ids = {};
  const setupAnswers = new Map<string, TestResponse>();

  beforeAll(async () => {
    // The test images' ids and layers, in the reference's answers and in berth's.
    if (area === 'images')
      for (const [name, tag, answer] of [['img', 'g2-bb:latest', 'inspect'], ['imglbl', 'g2-lbl:latest', 'inspect labelled']] as const) {
        addImageIds(refIds, name, golden.answers.find((a) => a.name === answer)?.body as never);
        addImageIds(ids, name, (await b.request('GET', `/v1.24/images/${tag}/json`)).json());
      }
    // Sizes are compared when the host's busybox is the one the fixtures were made with.
    sameTestImage(area !== 'images' || ids.img === refIds.img);
    for (const step of golden.setup) {
      const r = await send(step.request, ids, refIds);
      setupAnswers.set(step.name, r);
      if (r.status !== step.status) throw new Error(`${step.name}: ${r.status} ${r.text} (the reference: ${step.status})`);
      const m = /^create (user)$/.exec(step.name) ?? (area === 'networks' && step.name === 'create' ? [step.name, 'net'] : null);
      if (m) {
        ids[m[1]] = r.json().Id;
        refIds[m[1]] = (step.body as { Id: string }).Id;
      }
    }
  });

  afterAll(async () => {
    // The fixture's cleanup requests, but not those naming an object the setup did not get to make.
    const made = (c: GoldenRequest) => [...c.path.matchAll(/\{(\w+)\}/g)].every((m) => ids[m[1]]);
    for (const c of golden.cleanup ?? []) if (made(c)) await send(c, ids, refIds);
  });

  const check = (a: GoldenAnswer, r: TestResponse) => {
    const isArray = Array.isArray(a.body);
    const status = r.status === a.status ? [] : [`status: ${a.status} in the reference, ${r.status} in berth`];
    const allow = allowed(area, v, a.name, isArray);
    expect(status).toEqual(allow.filter((d) => d.startsWith('status:')));
    if (status.length) return; // an allowed different status: the bodies of an error and of a success are not compared
    expect(r.headers['content-type'] ?? null).toBe(a.contentType);
    if (a.body === undefined) expect(normalise(r.text, ids)).toBe(normalise(a.text, refIds));
    else expect(collapse(jsonDiff(normalise(a.body, refIds), normalise(r.json(), ids)))).toEqual(allow.filter((d) => !d.startsWith('status:')));
  };

  test.each(golden.setup.map((a) => [a.name, a] as const))('setup: %s', (_name, a) => check(a, setupAnswers.get(a.name)!));

  test.each(golden.answers.map((a) => [a.name, a] as const))('%s', async (_name, a) => check(a, await send(a.request, ids, refIds)));
});
