// The fuzz suite (issue 19), CI-sized: BERTH_FUZZ_N seeded malformed requests (default 1500; the long run is
// BERTH_FUZZ_N=10000, see the README) from test/helpers/fuzz.ts against the real bin/berthd, 4 at a time. Every answer must be below 500 — a
// client's fault is never a server error — or a connection node's parser closes on malformed HTTP; berth keeps
// answering, and afterwards every list still answers 200 (nothing stored poisons it). Also: berthd's RSS (VmRSS in
// /proc/<pid>/status) is back within 10 % of its value before the run, each taken after a full garbage collection
// (asked through berthd's inspector, opened for this test with NODE_OPTIONS; berth's API has nothing for it) and
// after a warm-up run as long, so that compiled code, caches and pools are in both figures, and nothing outside berth's own folders was touched: the test's
// folders around the data root (berth's data root sits three levels down, so the fuzzer's `../` names would land
// there), the names in /etc, and no entry named after the fuzzer's words appearing in /tmp.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Fuzzer, FuzzRequest, send } from '../helpers/fuzz';
import { request } from '../helpers/berth';
import { berthdLauncher, type Berthd } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import WebSocket = require('ws');

const top = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fuzz-'));
const dir = path.join(top, 'a', 'b', 'c');
fs.mkdirSync(dir, { recursive: true });
const namespace = `berth-fuzz-${process.pid}`;
const { berthd, stop, cleanup } = berthdLauncher({ dir, namespace, bridge: `bfz${process.pid % 10000}`, subnet: '10.251.89.0/24' });
const socket = path.join(dir, 'berth.sock');
let b: Berthd;

beforeAll(async () => {
  fs.writeFileSync(path.join(top, 'sentinel'), 'outside berth\n');
  fs.mkdirSync(path.join(top, 'a', 'b', 'x-sentinel'));
  fs.writeFileSync(path.join(dir, 'daemon.json'), '{}');
  // the inspector on a loopback port of its own (the test's way to a full GC; nothing in berth's API)
  b = await berthd(['-H', `unix://${socket}`, '--config-file', path.join(dir, 'daemon.json')], { socket, env: { NODE_OPTIONS: '--inspect=127.0.0.1:0' } });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
  expect((await request(socket, 'POST', '/v1.24/containers/create?name=fz1', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  if (b) await stop(b);
  await cleanup();
  fs.rmSync(top, { recursive: true, force: true });
}, 60_000);

/** The 500s the spec lists for a client's request: operations on predefined networks before 1.24 (403 since). */
function specified500(p: string, text: string): boolean {
  const v = /^\/v(1\.\d+)\//.exec(p)?.[1];
  return !!v && Number(v.split('.')[1]) < 24 && /^\/v[\d.]+\/networks\//.test(p) && /predefined|pre-defined/.test(text);
}

const N = Number(process.env.BERTH_FUZZ_N ?? 1500);
const SEED = Number(process.env.BERTH_FUZZ_SEED ?? 19);

/** Sends the requests 4 at a time; the ones answered with a server error or closed when they were well-formed HTTP. */
async function run(reqs: FuzzRequest[], statuses = new Map<string, number>()): Promise<string[]> {
  const bad: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const i = next++;
      const r = reqs[i];
      const out = await send(socket, r);
      statuses.set(String(out.status), (statuses.get(String(out.status)) ?? 0) + 1);
      if (out.status === 'closed' ? r.kind !== 'raw' : out.status >= 500 && !specified500(r.path, out.text))
        bad.push(`#${i} ${out.status} ${r.method} ${r.path.slice(0, 120)} ${r.body?.subarray(0, 200).toString() ?? ''} → ${out.text.split('\r\n\r\n')[1]?.slice(0, 200)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return bad;
}

/** A full garbage collection in berthd, through its inspector (HeapProfiler.collectGarbage), then a moment to settle. */
async function collectGarbage(): Promise<void> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(b.log())?.[1];
  if (!url) throw new Error('berthd has no inspector');
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    ws.on('message', (m) => JSON.parse(String(m)).id === 1 && resolve());
  });
  ws.close();
  await new Promise((r) => setTimeout(r, 1000));
}

/** berthd's resident set (kB). */
function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/** Every path under `root` with its kind, size and mtime, berth's own folders and files left out. */
function snapshot(root: string, own: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      const full = path.join(p, e.name);
      if (own.some((o) => full === o || full.startsWith(o + '/'))) continue;
      const st = fs.lstatSync(full);
      out[path.relative(root, full)] = `${e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'f'} ${e.isDirectory() ? '' : st.size} ${st.mtimeMs}`;
      if (e.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out;
}

/** The names the fuzzer sends as names and paths, as a file they would make would be called. */
const FUZZ_WORDS = ['x', 'etc', 'fz1', 'nope', 'toString', '__proto__', 'constructor', 'UPPER', '-x', 'x:y', 'sha256:zz', '%00', '%ff', 'NaN', 'null', 'true', 'a'.repeat(255)];

test(`${N} malformed requests (seed ${SEED}): no 5xx, no crash, lists intact, RSS back within 10 %, nothing outside berth touched`, async () => {
  const pid = b.child.pid!;
  // a warm-up run as long as the measured one, with another seed: code compiled, caches and pools made, and the heap
  // grown to what such a run needs, so that what the measured run adds is what it keeps
  const warm = new Fuzzer(SEED + 1000);
  expect(await run(Array.from({ length: N }, () => warm.request()))).toEqual([]);
  await collectGarbage();
  const rss0 = rssKb(pid);
  const own = [path.join(dir, 'data'), path.join(dir, 'exec'), socket, path.join(dir, 'daemon.json'), ...fs.readdirSync(dir).filter((f) => f.startsWith('berthd-')).map((f) => path.join(dir, f))];
  const tree0 = snapshot(top, own);
  const etc0 = fs.readdirSync('/etc').sort();
  const tmp0 = new Set(fs.readdirSync('/tmp'));

  const f = new Fuzzer(SEED);
  const statuses = new Map<string, number>();
  expect(await run(Array.from({ length: N }, () => f.request()), statuses)).toEqual([]);
  expect((await request(socket, 'GET', '/_ping')).status).toBe(200);
  for (const p of ['/v1.24/containers/json?all=1', '/v1.24/images/json', '/v1.24/networks', '/v1.24/volumes', '/v1.24/info', '/v1.18/containers/json?all=1', '/v1.18/images/json'])
    expect([p, (await request(socket, 'GET', p)).status]).toEqual([p, 200]);

  // nothing outside berth's folders
  expect(snapshot(top, own)).toEqual(tree0);
  expect(fs.readdirSync('/etc').sort()).toEqual(etc0);
  expect(fs.readdirSync('/tmp').filter((e) => !tmp0.has(e) && FUZZ_WORDS.includes(e))).toEqual([]);

  // memory: back within 10 % after a full collection (a few tries: requests' sockets and streams close just after)
  const peak = rssKb(pid);
  let rss = peak;
  for (let i = 0; i < 5 && (i === 0 || rss > rss0 * 1.1); i++) {
    await collectGarbage();
    rss = rssKb(pid);
  }
  console.log(`fuzz: ${N} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; berthd RSS ${rss0} kB before (after a GC), ${peak} kB at the end, ${rss} kB after a GC`);
  expect(rss).toBeLessThanOrEqual(rss0 * 1.1);
}, 300_000);
