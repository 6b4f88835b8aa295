// How many observations of berth match the reference engine's, scenario by scenario (test/helpers/golden-scenarios.ts):
//
//   node dist/bench/parity.js REF_SOCK BERTH_SOCK          runs the scenarios against both engines now
//   node dist/bench/parity.js --dirs REF_DIR BERTH_DIR     compares two captures (golden-scenarios.js SOCK DIR)
//
// An observation is one status, one content type, one header, one text body, or one leaf of a JSON body (a key
// with its type and its normalised value; a missing or extra key counts once, a list of another length once).
// Prints per scenario and per version the observations and those that differ, then the match rate, as JSON. The
// differences berth keeps on purpose (test/integration/golden-scenarios.test.ts lists them) count as mismatches here.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jsonDiff } from '../test/helpers/golden';
import { Observation, runEventScenarios, runScenarios, SCENARIO_VERSIONS, ScenarioFixture } from '../test/helpers/golden-scenarios';

function leaves(v: unknown): number {
  if (Array.isArray(v)) return v.length ? v.reduce((n: number, x) => n + leaves(x), 0) : 1;
  if (v !== null && typeof v === 'object') return Object.keys(v).length ? Object.values(v).reduce((n: number, x) => n + leaves(x), 0) : 1;
  return 1;
}

export function compareObservation(ref: Observation, got: Observation | undefined): { total: number; diffs: string[] } {
  if (!got) return { total: 2 + leaves(ref.body ?? ref.text ?? null), diffs: ['missing in berth'] };
  const diffs: string[] = [];
  if (ref.status !== got.status) diffs.push(`status: ${ref.status} in the reference, ${got.status} in berth`);
  if (ref.contentType !== got.contentType) diffs.push(`content type: ${ref.contentType} in the reference, ${got.contentType} in berth`);
  let total = 2;
  if (ref.headers) {
    total += Object.keys(ref.headers).length;
    diffs.push(...jsonDiff(ref.headers, got.headers ?? {}, 'headers'));
  }
  // Bodies of answers with different statuses are different answers: counted, not compared leaf by leaf.
  if (ref.status !== got.status) return { total: total + 1, diffs: [...diffs, 'body'] };
  if (ref.body !== undefined || got.body !== undefined) {
    total += leaves(ref.body ?? null);
    diffs.push(...jsonDiff(ref.body ?? null, got.body ?? null));
  } else {
    total += 1;
    if (ref.text !== got.text) diffs.push(`text: ${JSON.stringify(ref.text)} in the reference, ${JSON.stringify(got.text)} in berth`);
  }
  return { total, diffs };
}

async function capture(sock: string): Promise<ScenarioFixture[]> {
  const out: ScenarioFixture[] = [];
  for (const v of SCENARIO_VERSIONS) {
    const fx = await runScenarios(sock, v);
    fx.observations.push(...(await runEventScenarios(sock, v)));
    out.push(fx);
  }
  return out;
}

const readDir = (dir: string): ScenarioFixture[] => SCENARIO_VERSIONS.map((v) => JSON.parse(fs.readFileSync(path.join(dir, `${v}.json`), 'utf8')) as ScenarioFixture);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const [ref, berth] = args[0] === '--dirs' ? [readDir(args[1]), readDir(args[2])] : [await capture(args[0]), await capture(args[1])];
  let total = 0;
  let differing = 0;
  const byScenario: Record<string, { observations: number; differing: number }> = {};
  const details: Record<string, string[]> = {};
  for (const fx of ref) {
    const other = berth.find((b) => b.version === fx.version);
    for (const o of fx.observations) {
      const r = compareObservation(o, other?.observations.find((x) => x.name === o.name));
      const key = o.name.replace(/:.*/, '');
      byScenario[key] ??= { observations: 0, differing: 0 };
      byScenario[key].observations += r.total;
      byScenario[key].differing += Math.min(r.diffs.length, r.total);
      total += r.total;
      differing += Math.min(r.diffs.length, r.total);
      if (r.diffs.length && process.env.PARITY_VERBOSE) details[`${fx.version} ${o.name}`] = r.diffs;
    }
  }
  console.log(JSON.stringify({ observations: total, differing, matchRate: Number(((total - differing) / total).toFixed(4)), byScenario, ...(process.env.PARITY_VERBOSE ? { details } : {}) }, null, 2));
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
