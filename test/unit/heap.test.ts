// Start-up's garbage given back (src/runtime/heap.ts): in a child node with the launcher's young generation, garbage
// like start-up's, then lowMemoryGc(): the old space's pages are given back, the young generation is down to one
// semi-space's worth as V8's memory reducer leaves it, and the process still exits by itself (the inspector session
// is let go).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { transformSync } from '@swc/core';

const ROOT = path.resolve(__dirname, '../..');

test('lowMemoryGc() gives the old space and half the young generation back, and lets node exit', () => {
  const heap = transformSync(fs.readFileSync(path.join(ROOT, 'src/runtime/heap.ts'), 'utf8'), { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code;
  const child = `
    const m = { exports: {} }; new Function('exports', 'require', 'module', ${JSON.stringify(heap)})(m.exports, require, m);
    const v8 = require('v8');
    const space = (n) => v8.getHeapSpaceStatistics().find((s) => s.space_name === n);
    let keep = [];
    for (let i = 0; i < 200000; i++) keep.push({ i, s: 'x' + i });
    // the old space measured while all of it is live (a full GC started by V8 itself in the meantime may have freed
    // some of the garbage by the time lowMemoryGc() starts)
    const oldBefore = space('old_space').space_size;
    keep = keep.filter((_, i) => i % 20 === 0);
    // The young generation at its full two semi-spaces when lowMemoryGc() starts: a scavenge's epilogue uncommits
    // from-space by itself when the allocation rate it measures is low (a process descheduled on a loaded machine),
    // so young garbage is made until a scavenge has committed both again.
    let young = space('new_space').space_size;
    for (let r = 0; young < 2 * 1024 * 1024 && r < 1000; r++) {
      const t = [];
      for (let i = 0; i < 5000; i++) t.push({ i });
      young = space('new_space').space_size;
    }
    const before = { old: oldBefore, young };
    m.exports.lowMemoryGc().then((done) => {
      const after = { old: space('old_space').space_size, young: space('new_space').space_size };
      console.log(JSON.stringify({ done, oldShrank: after.old < before.old / 2, young: [before.young, after.young / before.young], kept: keep.length }));
    });`;
  const out = execFileSync(process.execPath, ['--max-semi-space-size=1', '-e', child], { encoding: 'utf8', timeout: 20_000 });
  expect(JSON.parse(out)).toEqual({ done: true, oldShrank: true, young: [2 * 1024 * 1024, 0.5], kept: 10000 });
});
