// The bundle bin/berthd runs (scripts/bundle.js, built by `npm run build`; needs the build like the worker tests):
// main.js is loaded from its code cache under the launcher's flags, every worker script the daemon starts is beside
// it, the packages an idle berthd never loads are left out of it, and the text is one byte a character.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE = path.join(ROOT, 'dist/bundle');

test('bin/berthd runs the bundle, which loads main.js from its code cache', () => {
  expect(fs.readFileSync(path.join(ROOT, 'bin/berthd'), 'utf8')).toContain('"$here/../dist/bundle/berthd.js"');
  const out = execFileSync(path.join(ROOT, 'bin/berthd'), [], { encoding: 'utf8', env: { ...process.env, BERTH_CODE_CACHE_CHECK: '1' } });
  expect(out).toBe('code cache used\n');
  // other V8 flags than the cache's: V8 refuses it, and main.js is parsed instead
  const other = execFileSync(process.execPath, ['--max-semi-space-size=2', path.join(BUNDLE, 'berthd.js')], { encoding: 'utf8', env: { ...process.env, BERTH_CODE_CACHE_CHECK: '1' } });
  expect(other).toBe('code cache not used\n');
});

test('a code cache made for another main.js is not used', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'dist/bundle-test-'));
  try {
    fs.copyFileSync(path.join(BUNDLE, 'berthd.js'), path.join(dir, 'berthd.js'));
    // the same length (all V8 itself checks of the source), one character changed
    const main = fs.readFileSync(path.join(BUNDLE, 'main.js'), 'utf8');
    fs.writeFileSync(path.join(dir, 'main.js'), main.replace('"use strict";', "'use strict';"));
    fs.copyFileSync(path.join(BUNDLE, 'main.js.cache'), path.join(dir, 'main.js.cache'));
    const flags = fs.readFileSync(path.join(ROOT, 'bin/berthd'), 'utf8').match(/--max-semi-space-size=\S+ --interrupt-budget=\S+/)![0].split(' ');
    const out = execFileSync(process.execPath, [...flags, path.join(dir, 'berthd.js')], { encoding: 'utf8', env: { ...process.env, BERTH_CODE_CACHE_CHECK: '1' } });
    expect(out).toBe('code cache not used\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the worker scripts the daemon starts are beside main.js', () => {
  const named = new Set<string>();
  for (const f of ['src/services/stats.ts', 'src/services/logs.ts', 'src/services/log-capture.ts']) {
    for (const m of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/'([a-z-]+-worker\.js)'/g)) named.add(m[1]);
  }
  expect([...named].sort()).toEqual(['log-capture-worker.js', 'logs-worker.js', 'stats-reader-worker.js']);
  for (const w of named) expect(fs.existsSync(path.join(BUNDLE, w))).toBe(true);
  expect(fs.existsSync(path.join(BUNDLE, 'gen/protos.json'))).toBe(true);
});

test('packages an idle berthd does not load stay out of main.js, and its text is one byte a character', () => {
  const main = fs.readFileSync(path.join(BUNDLE, 'main.js'), 'utf8');
  for (const pkg of ['undici', 'etcd3', 'dockerfile-ast', 'tar-stream', 'ws', 'ajv', 'iconv-lite']) {
    expect(main).not.toContain(`"node_modules/${pkg}/`);
    expect(main).toContain(`require("${pkg}")`);
  }
  // esbuild's module keys name what it bundled: grpc-js and express are in
  expect(main).toContain('"node_modules/@grpc/grpc-js/');
  expect(main).toContain('"node_modules/express/');
  expect(/[^\x00-\xff]/.test(main)).toBe(false);
});
