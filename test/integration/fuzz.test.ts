// The fuzz suite (issue 19), CI-sized: BERTH_FUZZ_N seeded malformed requests (default 1500; bench/fuzz.ts runs
// 10,000) from test/helpers/fuzz.ts against a real berth, 4 at a time. Every answer must be below 500 — a client's
// fault is never a server error — or a connection node's parser closes on malformed HTTP; berth keeps answering,
// and afterwards every list still answers 200 (nothing stored poisons it).
import { Fuzzer, send } from '../helpers/fuzz';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(async () => {
  b = berth();
  expect((await b.request('POST', '/v1.24/containers/create?name=fz1', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).status).toBe(201);
});

/** The 500s the spec lists for a client's request: operations on predefined networks before 1.24 (403 since). */
function specified500(path: string, text: string): boolean {
  const v = /^\/v(1\.\d+)\//.exec(path)?.[1];
  return !!v && Number(v.split('.')[1]) < 24 && /^\/v[\d.]+\/networks\//.test(path) && /predefined|pre-defined/.test(text);
}

const N = Number(process.env.BERTH_FUZZ_N ?? 1500);
const SEED = Number(process.env.BERTH_FUZZ_SEED ?? 19);

test(`${N} malformed requests (seed ${SEED}): no 5xx, no crash, lists intact`, async () => {
  const f = new Fuzzer(SEED);
  const reqs = Array.from({ length: N }, () => f.request());
  const bad: string[] = [];
  const statuses = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const i = next++;
      const r = reqs[i];
      const out = await send(b.socket, r);
      statuses.set(String(out.status), (statuses.get(String(out.status)) ?? 0) + 1);
      if (out.status === 'closed' ? r.kind !== 'raw' : out.status >= 500 && !specified500(r.path, out.text))
        bad.push(`#${i} ${out.status} ${r.method} ${r.path.slice(0, 120)} ${r.body?.subarray(0, 200).toString() ?? ''} → ${out.text.split('\r\n\r\n')[1]?.slice(0, 200)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  expect(bad).toEqual([]);
  expect((await b.request('GET', '/_ping')).status).toBe(200);
  for (const p of ['/v1.24/containers/json?all=1', '/v1.24/images/json', '/v1.24/networks', '/v1.24/volumes', '/v1.24/info', '/v1.18/containers/json?all=1', '/v1.18/images/json'])
    expect([p, (await b.request('GET', p)).status]).toEqual([p, 200]);
  console.log(`fuzz: ${N} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
}, 300_000);
