// berth against the reference engine's answers for whole scenarios (test/golden/scenarios/<version>.json, captured
// from Docker Engine 20.10 by scripts/capture-golden-scenarios.sh): a container from a minimal raw body and one made
// by the docker CLI through their lives, /version and /info (keys and types), the stats keys, the event sequence
// of each operation, and the statuses, content types and headers of edge cases, at 1.18, 1.19, 1.20, 1.22 and 1.24.
// Every difference berth keeps is listed in test/helpers/golden-scenario-allowances.ts with the spec passage that
// decides it, as "berth answers 4xx where the reference answers 5xx", or as "left"/"not yet"; the list must match exactly.
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { allowed, differences } from '../helpers/golden-scenario-allowances';
import { Observation, runEventScenarios, runScenarios, SCENARIO_IMAGE, SCENARIO_VERSIONS, ScenarioFixture } from '../helpers/golden-scenarios';
import * as fs from 'node:fs';
import * as path from 'node:path';

let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth();
  await loadBusybox(b, SCENARIO_IMAGE);
}, 120_000);
afterAll(async () => {
  await b?.close();
});

describe.each(SCENARIO_VERSIONS)('scenarios at API %s answer like the reference engine', (v) => {
  const golden = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'golden', 'scenarios', `${v}.json`), 'utf8')) as ScenarioFixture;
  let mine: Observation[] = [];
  beforeAll(async () => {
    mine = [...(await runScenarios(b.socket, v)).observations, ...(await runEventScenarios(b.socket, v))];
  }, 180_000);

  test.each(golden.observations.map((o) => [o.name, o] as const))('%s', (name, ref) => {
    const got = mine.find((o) => o.name === name);
    expect(got).toBeDefined();
    expect(differences(ref, got!)).toEqual(allowed(v, name));
  });
});
