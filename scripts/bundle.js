// berthd as it runs (npm run build, after tsc): dist/bundle/. bin/berthd runs dist/bundle/berthd.js
// (scripts/berthd-boot.js), which loads main.js, the daemon with the modules it loads at start-up in one file, from
// V8's code cache of it; each worker thread's script is a bundle of its own beside it (runtime/idle-worker.ts finds
// them by name). An idle berthd keeps the source text of every module it has loaded (V8 compiles functions lazily
// from it): ~2.6 MB over ~480 files as tsc and npm leave them, ~1.7 MB here (docs/performance.md, "Idle memory").
//
// - The input is tsc's CommonJS output (dist/src), so each module stays a function of its own with its names: no
//   identifier is renamed (stack traces keep every class and function name; esbuild's keepNames would cost ~1 MB of
//   heap at idle), only whitespace, comments and syntax are minified. tsc's source maps are followed: main.js.map
//   maps to src/*.ts (BERTH_SOURCE_MAPS=1 bin/berthd uses it).
// - LAZY packages stay outside, loaded from node_modules when first needed, as before: an idle berthd never loads
//   them, and bundled their text would sit in main.js's one string for good.
// - JSON files are copied to dist/bundle/json/ and required from there: parsed at run time into objects (mime-db's
//   200 KB table) rather than also kept as source text in the bundle.
// - main.js.cache: V8's code cache of main.js's top-level code, made here by node with bin/berthd's flags (V8 uses
//   a cache only under the flags it was made with), headed by main.js's SHA-256.
'use strict';
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist/bundle');

/** The entry points (tsc's output): the daemon and each worker thread's script. */
const ENTRIES = {
  main: 'dist/src/main.js',
  'logs-worker': 'dist/src/services/logs-worker.js',
  'log-capture-worker': 'dist/src/services/log-capture-worker.js',
  'stats-reader-worker': 'dist/src/services/stats-reader-worker.js',
};

/** Packages berthd requires only when first used (what only they use comes with them). */
const LAZY = [
  '@balena/dockerignore', // builder
  '@grpc/proto-loader', // npm run gen:proto only
  'ajv', // request schemas, compiled on a body's first check
  'cockatiel', // swarm mode
  'dns-packet', // the embedded DNS resolver
  'dockerfile-ast', // builder
  'etcd3', // swarm mode
  'iconv-lite', // body-parser, for a charset other than utf-8 (its tables are ~480 KB)
  'tar-fs', // image load/save, archives
  'tar-stream',
  'undici', // the registry client with an insecure registry's TLS
  'ws', // attach over websocket
];

/** JSON files are required at run time from a copy in dist/bundle/json/, not inlined as JavaScript. */
const jsonBeside = {
  name: 'json-beside',
  setup(build) {
    const copied = new Map();
    build.onResolve({ filter: /\.json$/ }, async (args) => {
      if (args.pluginData === 'json-beside') return undefined;
      const r = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'json-beside' });
      if (r.errors.length) return { errors: r.errors };
      let name = copied.get(r.path);
      if (!name) {
        name = `./json/${path.relative(ROOT, r.path).replace(/^node_modules[\\/]/, '').replace(/[\\/]/g, '+')}`;
        copied.set(r.path, name);
        fs.mkdirSync(path.join(OUT, 'json'), { recursive: true });
        fs.copyFileSync(r.path, path.join(OUT, name));
      }
      return { path: name, external: true };
    });
  },
};

/** The node flags bin/berthd starts berthd with (its `exec node ...` line). */
function launcherFlags() {
  const line = fs.readFileSync(path.join(ROOT, 'bin/berthd'), 'utf8').split('\n').find((l) => l.startsWith('exec node '));
  if (!line) throw new Error('bin/berthd: no exec node line');
  return line.slice('exec node '.length).split(/\s+/).filter((w) => w.startsWith('--') && !w.includes('$'));
}

/** main.js.cache: main.js's SHA-256, then V8's code cache of it, made under bin/berthd's flags. */
function writeCodeCache() {
  const main = path.join(OUT, 'main.js');
  const make = `
    const fs = require('fs'), vm = require('vm');
    const fn = vm.compileFunction(fs.readFileSync(${JSON.stringify(main)}, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: ${JSON.stringify(main)}, produceCachedData: true });
    if (!fn.cachedDataProduced) throw new Error('V8 made no code cache');
    process.stdout.write(fn.cachedData.toString('base64'));`;
  const data = Buffer.from(execFileSync(process.execPath, [...launcherFlags(), '-e', make], { encoding: 'utf8', maxBuffer: 64 << 20 }), 'base64');
  const text = fs.readFileSync(main, 'utf8');
  // esbuild escapes what is not ASCII, but not in regular expressions: one character above U+00FF would make V8 keep
  // the whole text in two bytes a character
  const wide = /[^\x00-\xff]/.exec(text);
  if (wide) throw new Error(`main.js: ${JSON.stringify(text.slice(Math.max(0, wide.index - 60), wide.index + 20))} holds a character above U+00FF`);
  const digest = crypto.createHash('sha256').update(text).digest();
  fs.writeFileSync(`${main}.cache`, Buffer.concat([digest, data]));
}

async function main() {
  fs.rmSync(OUT, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: OUT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    sourcemap: 'linked',
    sourcesContent: false,
    external: LAZY,
    plugins: [jsonBeside],
    logLevel: 'warning',
    metafile: true,
  });
  // the protos' JSON (src/containerd/loader.ts looks for gen/protos.json beside the running module)
  fs.mkdirSync(path.join(OUT, 'gen'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'src/containerd/gen/protos.json'), path.join(OUT, 'gen/protos.json'));
  fs.copyFileSync(path.join(ROOT, 'scripts/berthd-boot.js'), path.join(OUT, 'berthd.js'));
  writeCodeCache();
  if (process.argv.includes('--sizes')) {
    for (const [file, o] of Object.entries(result.metafile.outputs)) if (!file.endsWith('.map')) console.log(`${file} ${(o.bytes / 1024).toFixed(0)} KB`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
