// docs/parity.md lists every difference from the reference engine that the golden tests keep: it must be the
// rendering of their lists (test/helpers/parity-doc.ts says how to regenerate it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderParityDoc } from '../helpers/parity-doc';
import { ALLOWED, kindOf } from '../helpers/golden-scenario-allowances';
import { CONTAINER_ALLOWED, OBJECT_ALLOWED } from '../helpers/golden-allowances';

test('docs/parity.md is the rendering of the golden tests\' lists of kept differences', () => {
  expect(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'parity.md'), 'utf8')).toBe(renderParityDoc());
});

test('every kept difference says what decides it: a spec passage, 4xx for 5xx, left (with why) or not yet', () => {
  for (const a of [...ALLOWED, ...CONTAINER_ALLOWED, ...OBJECT_ALLOWED]) expect(a.why).toMatch(/^(spec, |berth answers 4xx where the reference answers 5xx|left: |not yet: )/);
  // the rule-decided kinds are what bench/parity.ts sets aside
  const kinds = new Set(ALLOWED.map((a) => kindOf(a)));
  expect(kinds.has('spec') && kinds.has('4xx') && [...kinds].every((k) => ['spec', '4xx', 'left'].includes(k))).toBe(true);
});
