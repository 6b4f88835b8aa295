// Scenarios whose answers are compared between the reference engine and berth as whole runs (not as single
// replayed requests): a container made from a minimal raw body and one made by the docker CLI, /version and /info,
// the stats keys, the event sequence of each operation, and the statuses, content types and headers of a set of
// edge cases. runScenarios(socket, version) drives one engine and returns its observations, already normalised
// (ids as {name}, clock readings and host-specific values as placeholders), so that two runs compare with jsonDiff.
//
//   node dist/test/helpers/golden-scenarios.js SOCK [outdir]   (scripts/capture-golden-scenarios.sh)
//
// writes test/golden/scenarios/<version>.json; test/integration/golden-scenarios.test.ts runs the same scenarios
// against berth and compares, and bench/parity.ts counts the observations that match. Every object made is named
// golden-*, and removed at the end (the reference is shared).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { Ids, normalise } from './golden';

export const SCENARIO_VERSIONS = ['1.18', '1.19', '1.20', '1.22', '1.24'];
/** The image every scenario uses: berth's test busybox (test/helpers/busybox-image.ts) under this name. */
export const SCENARIO_IMAGE = 'golden-bb:latest';

export interface Observation {
  name: string;
  status: number;
  contentType: string | null;
  /** Selected response headers (lower-case names), normalised. */
  headers?: Record<string, string>;
  body?: unknown;
  text?: string;
}

export interface ScenarioFixture {
  engine?: string;
  version: string;
  observations: Observation[];
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function call(sock: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const h: Record<string, string> = { ...headers };
    if (payload) {
      h['Content-Type'] ??= 'application/json';
      h['Content-Length'] = String(payload.length);
    }
    const req = http.request({ socketPath: sock, method, path: p, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    // A 101 answer: only its status and headers are observed.
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** The first JSON document of a streamed answer (stats), then the connection is closed. */
function firstJson(sock: string, p: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath: sock, path: p, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        const nl = text.indexOf('\n');
        if (nl >= 0) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: text.slice(0, nl + 1) });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
  });
}

function docker(sock: string, v: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DOCKER_HOST: `unix://${sock}`, DOCKER_API_VERSION: v };
    execFile('/usr/bin/docker', args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

// Headers whose presence and value a client can depend on; Date and Content-Length are clock readings and sizes.
const HEADERS = ['api-version', 'connection', 'content-type', 'docker-experimental', 'ostype', 'transfer-encoding', 'upgrade', 'cache-control', 'pragma'];

function headersOf(raw: Raw): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of HEADERS) if (raw.headers[h] !== undefined) out[h] = String(raw.headers[h]);
  // The highest version the daemon serves: 1.41 for the reference, 1.24 for berth (whose clients negotiate down to it).
  if (out['api-version']) out['api-version'] = '<max api version>';
  return out;
}

/** Keys and JSON types only, for answers whose values are the host's (version, info, stats). */
export function shape(v: unknown): unknown {
  if (v === null) return null;
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, shape(x)]));
  return `<${typeof v}>`;
}

const short = (v: string) => v.replace('.', '');

/** One run of every scenario at one version against the engine at `sock`. */
export async function runScenarios(sock: string, v: string): Promise<ScenarioFixture> {
  const t = short(v);
  const ids: Ids = {};
  const obs: Observation[] = [];
  const cleanup: [string, string][] = [];
  const observe = (name: string, raw: Raw, mode: 'json' | 'shape' | 'text' | 'status' = 'json', withHeaders = false) => {
    const contentType = raw.headers['content-type'] ?? null;
    const o: Observation = { name, status: raw.status, contentType };
    if (withHeaders) o.headers = headersOf(raw);
    // A stream of stats readings has no content type at the reference: its keys are observed all the same.
    const isJson = (/^application\/json/.test(contentType ?? '') || mode === 'shape') && raw.text.length > 0;
    if (mode === 'status') {
      // the body is not observed
    } else if (isJson && mode !== 'text') {
      // A progress stream (push, pull) is several documents: observed as their list.
      const docs = raw.text.split('\n').filter((l) => l.trim());
      const body = docs.length > 1 ? docs.map((d) => JSON.parse(d)) : JSON.parse(raw.text);
      o.body = mode === 'shape' ? shape(body) : normalise(body, ids);
    } else o.text = normalise(raw.text, ids) as string;
    obs.push(o);
    return raw;
  };
  const api = (method: string, p: string, body?: unknown, headers?: Record<string, string>) => call(sock, method, p.startsWith('/v') ? p : `/v${v}${p}`, body, headers);
  const create = async (name: string, body: unknown, at = v): Promise<string> => {
    const r = await call(sock, 'POST', `/v${at}/containers/create?name=${name}`, body);
    if (r.status !== 201) throw new Error(`create ${name} at ${at}: ${r.status} ${r.text}`);
    cleanup.push(['DELETE', `/v1.24/containers/${name}?force=1&v=1`]);
    return JSON.parse(r.text).Id as string;
  };
  try {
    // System.
    observe('ping', await api('GET', '/_ping'), 'text', true);
    observe('version', await api('GET', '/version'), 'shape', true);
    observe('info', await api('GET', '/info'), 'shape');

    // A container from a minimal raw body (the engine's defaults for every field not sent), its whole life.
    ids.bare = await create(`golden-bare-${t}`, { Image: SCENARIO_IMAGE, Cmd: ['true'] });
    observe('bare: inspect created', await api('GET', `/containers/${ids.bare}/json`));
    // Run with NetworkMode none: the shared reference's default bridge is not always there, and its addresses are
    // the host's anyway.
    ids.minimal = await create(`golden-min-${t}`, { Image: SCENARIO_IMAGE, Cmd: ['sh', '-c', 'echo out; sleep 0.2; echo err >&2'], HostConfig: { NetworkMode: 'none' } });
    observe('minimal: inspect created', await api('GET', `/containers/${ids.minimal}/json`));
    await api('POST', `/containers/${ids.minimal}/start`);
    observe('minimal: wait', await api('POST', `/containers/${ids.minimal}/wait`));
    observe('minimal: inspect exited', await api('GET', `/containers/${ids.minimal}/json`));
    observe('minimal: logs', await api('GET', `/containers/${ids.minimal}/logs?stdout=1&stderr=1`), 'text', true);
    observe('minimal: logs with Upgrade', await api('GET', `/containers/${ids.minimal}/logs?stdout=1`, undefined, { Connection: 'Upgrade', Upgrade: 'tcp' }), 'text', true);
    observe('minimal: attach logs', await api('POST', `/containers/${ids.minimal}/attach?logs=1&stdout=1&stream=0`), 'status', true);
    observe('minimal: attach logs with Upgrade', await api('POST', `/containers/${ids.minimal}/attach?logs=1&stdout=1&stream=0`, undefined, { Connection: 'Upgrade', Upgrade: 'tcp' }), 'status', true);
    observe('minimal: kill stopped', await api('POST', `/containers/${ids.minimal}/kill`));
    observe('minimal: unpause stopped', await api('POST', `/containers/${ids.minimal}/unpause`));

    // A container made by the docker CLI of the same version.
    const cli = await docker(sock, v, ['create', '--name', `golden-cli-${t}`, '--network', 'none', SCENARIO_IMAGE, 'sleep', '60']);
    if (cli.code !== 0) throw new Error(`docker create at ${v}: ${cli.stderr}`);
    cleanup.push(['DELETE', `/v1.24/containers/golden-cli-${t}?force=1&v=1`]);
    ids.cli = cli.stdout.trim();
    observe('cli: inspect created', await api('GET', `/containers/${ids.cli}/json`));
    await api('POST', `/containers/${ids.cli}/start`);
    observe('cli: inspect running', await api('GET', `/containers/${ids.cli}/json`));
    observe('cli: stats', await firstJson(sock, `/v${v}/containers/${ids.cli}/stats${v === '1.18' ? '' : '?stream=0'}`), 'shape');
    observe('cli: unpause running', await api('POST', `/containers/${ids.cli}/unpause`));
    observe('cli: update BlkioWeight out of range', await api('POST', `/containers/${ids.cli}/update`, { BlkioWeight: 5 }));
    const list = await api('GET', '/containers/json');
    observe('cli: list', { ...list, text: JSON.stringify((JSON.parse(list.text) as { Id: string }[]).filter((c) => c.Id === ids.cli)) });
    observe('cli: attach bad detachKeys', await api('POST', `/containers/${ids.cli}/attach?logs=1&stream=0&stdout=1&detachKeys=ctrl-9`), 'text');

    // Volumes and binds: Mounts (Type, Mode, order-free), GraphDriver's directories, created, running and exited.
    const vol = `golden-vol-${t}`;
    await api('POST', '/v1.24/volumes/create', { Name: vol });
    cleanup.push(['DELETE', `/v1.24/volumes/${vol}`]);
    // The spec: a volume name in Binds since v1.22.
    const named = v >= '1.22' ? [`${vol}:/data`, `${vol}:/data-ro:ro`] : [];
    ids.vols = await create(`golden-vols-${t}`, {
      Image: SCENARIO_IMAGE,
      Cmd: ['sleep', '60'],
      Volumes: { '/anon': {} },
      HostConfig: { NetworkMode: 'none', Binds: [...named, '/tmp:/host:ro', '/tmp:/host-rw'] },
    });
    observe('volumes: inspect created', await api('GET', `/containers/${ids.vols}/json`));
    await api('POST', `/containers/${ids.vols}/start`);
    observe('volumes: inspect running', await api('GET', `/containers/${ids.vols}/json`));
    const vlist = await api('GET', '/containers/json');
    observe('volumes: list', { ...vlist, text: JSON.stringify((JSON.parse(vlist.text) as { Id: string }[]).filter((c) => c.Id === ids.vols)) });
    await api('POST', `/containers/${ids.vols}/kill`);
    await api('POST', `/containers/${ids.vols}/wait`);
    observe('volumes: inspect exited', await api('GET', `/containers/${ids.vols}/json`));
    if (v >= '1.21') observe('named volume: inspect', await api('GET', `/volumes/${vol}`));

    // The scenario image, as both engines loaded it from the same archive, once tagged and untagged (its LastTagTime
    // stays).
    await api('POST', `/images/${SCENARIO_IMAGE}/tag?repo=golden-lt-${t}&tag=x`);
    await api('DELETE', `/images/golden-lt-${t}:x`);
    observe('image: inspect', await api('GET', `/images/${SCENARIO_IMAGE}/json`));
    const ilist = await api('GET', '/images/json');
    observe('image: list', { ...ilist, text: JSON.stringify((JSON.parse(ilist.text) as { RepoTags?: string[] }[]).filter((i) => i.RepoTags?.includes(SCENARIO_IMAGE))) });

    // Statuses and error bodies.
    // Only the status: a created container's id is random.
    const bad = observe('create invalid hostname', await api('POST', `/containers/create?name=golden-badhost-${t}`, { Image: SCENARIO_IMAGE, Hostname: '-golden_bad' }), 'status');
    if (bad.status === 201) cleanup.push(['DELETE', `/v1.24/containers/golden-badhost-${t}?force=1`]);
    observe('inspect missing', await api('GET', '/containers/golden-nope/json'), 'json', true);
    observe('logs missing', await api('GET', '/containers/golden-nope/logs?stdout=1'), 'json', true);
    observe('attach missing', await api('POST', '/containers/golden-nope/attach?stream=1&stdout=1'), 'json', true);
    observe('attach missing with Upgrade', await api('POST', '/containers/golden-nope/attach?stream=1&stdout=1', undefined, { Connection: 'Upgrade', Upgrade: 'tcp' }), 'json', true);
    observe('exec start missing', await api('POST', '/exec/golden-nope/start', { Detach: false, Tty: false }), 'json', true);
    observe('wait missing', await api('POST', '/containers/golden-nope/wait'), 'json', true);
    observe('events until before since', await api('GET', '/events?since=1000&until=500'));
    observe('push without auth', await api('POST', `/images/${SCENARIO_IMAGE.split(':')[0]}/push?tag=latest`), 'json');
    if (v >= '1.21') {
      observe('network create empty name', await api('POST', '/networks/create', { Name: '' }));
      observe('network create predefined name', await api('POST', '/networks/create', { Name: 'bridge' }));
      observe('network remove predefined', await api('DELETE', '/networks/none'));
      // Its Containers are whatever else runs on the engine.
      const bridge = await api('GET', '/networks/bridge');
      observe('network inspect default bridge', { ...bridge, text: JSON.stringify({ ...JSON.parse(bridge.text), Containers: {} }) }, 'shape');
    }
  } finally {
    // Last made, first removed (a volume after the containers that use it).
    for (const [m, p] of cleanup.reverse()) await call(sock, m, p);
  }
  return { version: v, observations: obs };
}

// Operations whose event sequences are compared: each returns the ids and names of what it made.
interface EventRun {
  name: string;
  run: (sock: string, v: string, t: string) => Promise<string[]>;
}

const EVENT_RUNS: EventRun[] = [
  {
    name: 'run with a named volume',
    run: async (sock, v, t) => {
      const vol = `golden-ev-vol-${t}`;
      await call(sock, 'POST', `/v1.24/volumes/create`, { Name: vol });
      const c = JSON.parse((await call(sock, 'POST', `/v1.24/containers/create?name=golden-ev-vol-${t}`, { Image: SCENARIO_IMAGE, Cmd: ['true'], HostConfig: { Binds: [`${vol}:/data`], NetworkMode: 'none' } })).text).Id;
      await call(sock, 'POST', `/v${v}/containers/${c}/start`);
      await call(sock, 'POST', `/v${v}/containers/${c}/wait`);
      await call(sock, 'DELETE', `/v${v}/containers/${c}`);
      await call(sock, 'DELETE', `/v1.24/volumes/${vol}`);
      return [c, vol];
    },
  },
  {
    name: 'run on a user network',
    run: async (sock, v, t) => {
      const net = JSON.parse((await call(sock, 'POST', '/v1.24/networks/create', { Name: `golden-ev-net-${t}`, IPAM: { Config: [{ Subnet: `172.29.${10 + Number(t.slice(-2))}.0/24` }] } })).text).Id;
      const c = JSON.parse((await call(sock, 'POST', `/v1.24/containers/create?name=golden-ev-net-${t}`, { Image: SCENARIO_IMAGE, Cmd: ['sleep', '60'], HostConfig: { NetworkMode: `golden-ev-net-${t}` } })).text).Id;
      await call(sock, 'POST', `/v${v}/containers/${c}/start`);
      await call(sock, 'POST', `/v${v}/containers/${c}/stop?t=1`);
      await call(sock, 'POST', `/v${v}/containers/${c}/start`);
      await call(sock, 'DELETE', `/v${v}/containers/${c}?force=1`);
      await call(sock, 'DELETE', `/v1.24/networks/${net}`);
      return [c, net];
    },
  },
  {
    name: 'exec',
    run: async (sock, v, t) => {
      const c = JSON.parse((await call(sock, 'POST', `/v1.24/containers/create?name=golden-ev-exec-${t}`, { Image: SCENARIO_IMAGE, Cmd: ['sleep', '60'], HostConfig: { NetworkMode: 'none' } })).text).Id;
      await call(sock, 'POST', `/v${v}/containers/${c}/start`);
      const e = JSON.parse((await call(sock, 'POST', `/v${v}/containers/${c}/exec`, { Cmd: ['true'], AttachStdout: true })).text).Id;
      await call(sock, 'POST', `/v${v}/exec/${e}/start`, { Detach: false, Tty: false });
      await call(sock, 'DELETE', `/v${v}/containers/${c}?force=1`);
      return [c, e];
    },
  },
  {
    name: 'image tag and untag',
    run: async (sock, v, t) => {
      const img = JSON.parse((await call(sock, 'GET', `/v1.24/images/${SCENARIO_IMAGE}/json`)).text).Id as string;
      await call(sock, 'POST', `/v${v}/images/${SCENARIO_IMAGE}/tag?repo=golden-ev-img-${t}&tag=x`);
      await call(sock, 'DELETE', `/v${v}/images/golden-ev-img-${t}:x`);
      return [img, `golden-ev-img-${t}`];
    },
  },
];

/** The events of one operation: those naming what it made, in order, each reduced to what is deterministic. */
export async function runEventScenarios(sock: string, v: string): Promise<Observation[]> {
  const t = short(v);
  const out: Observation[] = [];
  for (const run of EVENT_RUNS) {
    const since = (Date.now() / 1000 - 1).toFixed(3);
    const mine = await run.run(sock, v, t);
    await new Promise((r) => setTimeout(r, 300));
    const until = (Date.now() / 1000 + 1).toFixed(3);
    const raw = await call(sock, 'GET', `/v${v}/events?since=${since}&until=${until}`);
    const ids: Ids = Object.fromEntries(mine.map((m, i) => [`obj${i}`, m.replace(/^sha256:/, '')]));
    // The predefined none network's id (random, made at the engine's first start).
    const none = JSON.parse((await call(sock, 'GET', '/v1.24/networks/none')).text) as { Id?: string };
    if (none.Id) ids.none = none.Id;
    const events = raw.text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => {
        const actor = e.Actor as { ID?: string; Attributes?: Record<string, string> } | undefined;
        const names = [e.id, actor?.ID, actor?.Attributes?.container, actor?.Attributes?.name, actor?.Attributes?.execID].map((x) => String(x ?? '').replace(/^sha256:/, ''));
        return names.some((n) => mine.some((m) => n && (n === m.replace(/^sha256:/, '') || n.startsWith(`${m}:`))));
      })
      // Reduced to keys and values, with the attributes' names (their values are ids, names and images).
      .map((e) => {
        const { time, timeNano, ...rest } = e;
        void time;
        void timeNano;
        return normalise(rest, ids);
      });
    out.push({ name: `events: ${run.name}`, status: raw.status, contentType: raw.headers['content-type'] ?? null, body: events });
  }
  return out;
}

// node dist/test/helpers/golden-scenarios.js SOCK [outdir]: captures every version.
if (require.main === module) {
  const [sock, outArg] = process.argv.slice(2);
  const out = outArg ?? path.join(__dirname, '..', '..', '..', 'test', 'golden', 'scenarios');
  void (async () => {
    fs.mkdirSync(out, { recursive: true });
    const ver = JSON.parse((await call(sock, 'GET', '/version')).text);
    for (const v of (process.env.VERSIONS ?? SCENARIO_VERSIONS.join(',')).split(',')) {
      const fx = await runScenarios(sock, v);
      fx.observations.push(...(await runEventScenarios(sock, v)));
      const file = path.join(out, `${v}.json`);
      fs.writeFileSync(file, JSON.stringify({ engine: `Docker Engine ${ver.Version} (API ${ver.ApiVersion}), ${ver.Os}/${ver.Arch}`, ...fx }, null, 2) + '\n');
      console.log(`wrote ${file}`);
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
