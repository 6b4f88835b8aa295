// dist/bundle/berthd.js (copied there by scripts/bundle.js): what bin/berthd runs. It loads main.js, the bundled
// daemon, from V8's code cache of it (main.js.cache, made by the build with bin/berthd's node flags) when that cache
// is main.js's: parsing the 1.7 MB bundle in one piece leaves ~3–7 MB of the parser's freed memory in malloc's heap
// for good (its pages are not given back), which the cache's top-level code avoids; functions are still compiled
// lazily, one at a time. Without a usable cache (another node, other V8 flags, a stale file) V8 parses main.js as
// node would. BERTH_SOURCE_MAPS=1 (bin/berthd adds --enable-source-maps) loads main.js through node's own loader,
// whose stack traces are then mapped to src/.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { StringDecoder } = require('node:string_decoder');
const vm = require('node:vm');

const file = path.join(__dirname, 'main.js');

/**
 * main.js's text and SHA-256, read 64 KB at a time: one 1.7 MB read (or hash of the whole string) would be a malloc'd
 * block that glibc maps and unmaps, after which it keeps up to twice that size of freed memory in its heap (its
 * dynamic mmap and trim thresholds) for good.
 */
function readMain() {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafeSlow(64 << 10);
    const hash = crypto.createHash('sha256');
    const utf8 = new StringDecoder('utf8');
    const parts = [];
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      hash.update(buf.subarray(0, n));
      parts.push(utf8.write(buf.subarray(0, n)));
    }
    parts.push(utf8.end());
    return { source: parts.join(''), digest: hash.digest() };
  } finally {
    fs.closeSync(fd);
  }
}

/** main.js's compiled function from its code cache, or undefined (no cache, or not this file's, or rejected). */
function fromCache(source, digest) {
  let cache;
  try {
    cache = fs.readFileSync(file + '.cache');
  } catch {
    return undefined;
  }
  // V8 checks the cache's flags and version but only the length of the source: the build heads the cache with
  // main.js's SHA-256
  if (cache.length <= 32 || !cache.subarray(0, 32).equals(digest)) return undefined;
  const fn = vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file, cachedData: cache.subarray(32) });
  return fn.cachedDataRejected ? undefined : fn;
}

function run() {
  if (process.env.BERTH_SOURCE_MAPS) return require(file);
  const { source, digest } = readMain();
  const fn = fromCache(source, digest);
  // BERTH_CODE_CACHE_CHECK=1: says whether the cache would be used, and runs nothing (test/unit/bundle.test.ts)
  if (process.env.BERTH_CODE_CACHE_CHECK) return void process.stdout.write(fn ? 'code cache used\n' : 'code cache not used\n');
  if (!fn) return require(file);
  // main.js as node's loader would run it: a module of its own, in the module cache, requiring from its folder
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(__dirname);
  Module._cache[file] = m;
  fn.call(m.exports, m.exports, Module.createRequire(file), m, file, __dirname);
  m.loaded = true;
  return m.exports;
}

run();
