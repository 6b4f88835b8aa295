// Start-up without the optimizing compiler (src/runtime/jit.ts): bin/berthd gives node the start-up interrupt budget,
// and steadyJit() puts V8's default back. Run in a child node with the launcher's flag: a function as hot as start-up's
// path functions stays unoptimized under the start-up budget, and one made hot after steadyJit() is optimized.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { transformSync } from '@swc/core';
import { START_INTERRUPT_BUDGET, STEADY_INTERRUPT_BUDGET } from '../../src/runtime/jit';

const ROOT = path.resolve(__dirname, '../..');

test('bin/berthd starts node with the start-up budget', () => {
  expect(fs.readFileSync(path.join(ROOT, 'bin/berthd'), 'utf8')).toContain(` --interrupt-budget=${START_INTERRUPT_BUDGET} `);
  expect(START_INTERRUPT_BUDGET).toBeGreaterThan(STEADY_INTERRUPT_BUDGET);
});

test('nothing is optimized under the start-up budget; after steadyJit() hot code is', () => {
  const jit = transformSync(fs.readFileSync(path.join(ROOT, 'src/runtime/jit.ts'), 'utf8'), { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code;
  const child = `
    const m = { exports: {} }; new Function('exports', 'require', 'module', ${JSON.stringify(jit)})(m.exports, require, m);
    const optimized = (f) => (%GetOptimizationStatus(f) & 16) !== 0;
    // two functions of their own (closures made at one site would share one budget)
    function before(s) { let n = 0; for (let i = 0; i < s.length; i++) n = (n * 31 + s.charCodeAt(i)) | 0; return n; }
    function after(s) { let n = 0; for (let i = 0; i < s.length; i++) n = (n * 31 + s.charCodeAt(i)) | 0; return n; }
    for (let i = 0; i < 2000; i++) before('/var/lib/berth/containers/' + i);
    m.exports.steadyJit();
    for (let i = 0; i < 2000; i++) after('/var/lib/berth/containers/' + i);
    console.log(JSON.stringify({ before: optimized(before), after: optimized(after) }));`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', `--interrupt-budget=${START_INTERRUPT_BUDGET}`, '-e', child], { encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ before: false, after: true });
});
