// eslint for berth: typescript-eslint's recommended rules, and the dependency rule of docs/architecture.md as one
// table — which folders of src/ each folder may import. Every import of a folder outside its row is an error
// (no-restricted-imports), and the table itself must have no cycle, so no folder can import a folder that imports it
// back. A new folder under src/ gets a row here before its first import.
import tseslint from 'typescript-eslint';
import * as fs from 'node:fs';

/** Leaf modules at src/ (src/errors.ts, src/log.ts, ...) are named with their .ts file's base name. */
const MAY_IMPORT = {
  types: [],
  errors: [],
  log: [],
  version: [],
  spawner: [],
  config: ['log'],
  'daemon-config': ['config'],
  translate: ['types', 'errors'],
  http: ['translate', 'types', 'errors', 'log', 'config'],
  handlers: ['http', 'translate', 'types', 'errors'],
  containerd: ['types', 'errors', 'log'],
  runtime: ['translate', 'types', 'errors', 'log', 'spawner'],
  network: ['translate', 'types', 'errors', 'log', 'spawner'],
  images: ['translate', 'types', 'errors', 'log'],
  registry: ['translate', 'types', 'errors', 'log'],
  fs: ['translate', 'types', 'errors', 'log'],
  store: ['translate', 'types', 'errors', 'log'],
  events: ['containerd', 'runtime', 'translate', 'types', 'errors', 'log'],
  services: ['containerd', 'store', 'runtime', 'network', 'images', 'registry', 'fs', 'events', 'translate', 'types', 'errors', 'log', 'config', 'version'],
  // New areas (issues 14-16): service level; they may use the services, which may not use them.
  builder: ['services', 'containerd', 'store', 'runtime', 'network', 'images', 'registry', 'fs', 'events', 'translate', 'types', 'errors', 'log', 'config', 'version'],
  plugins: ['services', 'containerd', 'store', 'runtime', 'network', 'images', 'registry', 'fs', 'events', 'translate', 'types', 'errors', 'log', 'config', 'version'],
  authz: ['plugins', 'translate', 'types', 'errors', 'log'],
  cluster: ['services', 'containerd', 'store', 'runtime', 'network', 'images', 'registry', 'fs', 'events', 'translate', 'types', 'errors', 'log', 'config', 'version'],
};
/** The composition root imports anything. */
const ROOTS = ['src/main.ts', 'src/daemon.ts'];

// The table must be a DAG: then the lint rule forbids every folder cycle.
const visiting = new Set();
const done = new Set();
function visit(f, path) {
  if (done.has(f)) return;
  if (visiting.has(f)) throw new Error(`eslint.config.mjs: the layering table has a cycle: ${[...path, f].join(' → ')}`);
  visiting.add(f);
  for (const g of MAY_IMPORT[f] ?? []) {
    if (!(g in MAY_IMPORT)) throw new Error(`eslint.config.mjs: ${f} may import ${g}, which has no row`);
    visit(g, [...path, f]);
  }
  visiting.delete(f);
  done.add(f);
}
for (const f of Object.keys(MAY_IMPORT)) visit(f, []);

// Every folder and leaf module of src/ has a row.
const src = new URL('./src/', import.meta.url);
for (const e of fs.readdirSync(src, { withFileTypes: true })) {
  const name = e.isDirectory() ? e.name : e.name.replace(/\.ts$/, '');
  if (e.isFile() && (!e.name.endsWith('.ts') || ROOTS.includes(`src/${e.name}`))) continue;
  if (!(name in MAY_IMPORT)) throw new Error(`eslint.config.mjs: src/${e.name} has no row in the layering table (MAY_IMPORT)`);
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isFolder = (g) => fs.existsSync(new URL(`./src/${g}`, import.meta.url));
/** Relative imports that reach folder `g/` (or leaf module `g.ts`) of src/ from anywhere below src/. */
const reaching = (g) => `^(\\.\\./)+${escape(g)}${isFolder(g) ? '/' : '$'}`;

const layering = Object.entries(MAY_IMPORT).map(([folder, allowed]) => {
  const denied = Object.keys(MAY_IMPORT).filter((g) => g !== folder && !allowed.includes(g));
  const grpc = folder === 'containerd' ? [] : [{ regex: '^@grpc/', message: 'only src/containerd imports @grpc (docs/architecture.md)' }];
  return {
    files: isFolder(folder) ? [`src/${folder}/**/*.ts`] : [`src/${folder}.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...denied.map((g) => ({ regex: reaching(g), message: `src/${folder} may import only ${allowed.join(', ') || 'nothing of berth'} (docs/architecture.md)` })),
            ...grpc,
          ],
        },
      ],
    },
  };
});

// Outside src/containerd a service calls the facades (containerd/tasks.ts, images.ts, ...) with ids and objects,
// never a client's RPC with a request message, its raw streams, or the Any codec.
const RPC_CLIENTS = 'containers|content|diff|events|images|introspection|leases|namespaces|snapshots|tasks|version';
const facadesOnly = {
  files: ['src/**/*.ts'],
  ignores: ['src/containerd/**'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...["[object.object.name='ctr']", "[object.object.property.name='ctr']"].map((ctr) => ({
        selector: `MemberExpression[property.name=/^[A-Z]/][object.property.name=/^(${RPC_CLIENTS})$/]${ctr}`,
        message: 'call a src/containerd facade, not the client\'s RPC (docs/architecture.md)',
      })),
      ...["[object.name='ctr']", "[object.property.name='ctr']"].map((ctr) => ({
        selector: `MemberExpression[property.name=/^(raw|any|metadata|callOptions)$/]${ctr}`,
        message: 'only src/containerd uses the client\'s raw streams, metadata and Any codec (docs/architecture.md)',
      })),
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/containerd/gen/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // The wire is loosely typed JSON; `any` is allowed where the engine's shapes are.
      '@typescript-eslint/no-explicit-any': 'off',
      // tsc (noUnusedLocals/noUnusedParameters) reports these.
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  ...layering,
  facadesOnly,
);
