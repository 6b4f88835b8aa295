// handlers/stats over a real socket with a fake backend: one reading with stream=0 (from 1.19), a stream of them;
// the lean path's answers against express's.
import { notFound } from '../../../src/errors';
import { statsRoutes, StatsBackend } from '../../../src/handlers/stats';
import type { StatsReading } from '../../../src/translate/response/stats';
import { containerRecord, fake } from '../../helpers/fakes';
import { LeanAndExpress, leanAndExpressAnswers, rawAnswer, serveLeanAndExpress, serveRoutes, Served } from '../../helpers/serve-routes';

const reading = (n: number): StatsReading => ({ read: `2024-01-01T00:00:0${n}Z`, metrics: {}, systemCpuNs: n * 1e9, onlineCpus: 2, networks: {} });
const stats = fake<StatsBackend>({
  find: () => containerRecord(),
  once: async () => ({ cur: reading(2), prev: reading(1) }),
  stream: async function* () {
    yield reading(1);
    yield reading(2);
  },
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(statsRoutes(stats))));
afterAll(() => s.close());

test('stream=0 answers one reading with its precpu', async () => {
  const r = await s.request('GET', '/containers/web/stats?stream=0');
  expect([r.status, r.headers['content-length'] !== undefined]).toEqual([200, true]);
  const j = JSON.parse(r.text);
  expect(j).toMatchObject({ read: '2024-01-01T00:00:02Z', preread: '2024-01-01T00:00:01Z', name: '/web', id: 'c'.repeat(64) });
});

test('without stream=0 (and before 1.19 always) every reading is a line until the backend ends', async () => {
  for (const path of ['/containers/web/stats', '/v1.18/containers/web/stats?stream=0']) {
    const r = await s.request('GET', path);
    const ls = r.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(ls.map((l) => l.read)).toEqual(['2024-01-01T00:00:01Z', '2024-01-01T00:00:02Z']);
  }
});

describe('the lean path (http/app LeanRoute) answers byte for byte as the express route', () => {
  const routes = statsRoutes(
    fake<StatsBackend>({
      find: (ref) => {
        if (ref === 'gone') throw notFound('No such container: gone');
        if (ref === 'broken') throw new Error('not a berth error');
        return containerRecord({ Name: `/${ref}` });
      },
      once: async () => ({ cur: reading(2), prev: reading(1) }),
      stream: async function* () {
        yield reading(1);
        yield reading(2);
      },
    }),
  );
  let t: LeanAndExpress;
  beforeAll(async () => (t = await serveLeanAndExpress(routes)));
  afterAll(() => t.close());

  const versions = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];
  const queries = ['', '?stream=0', '?stream=1', '?stream=false', '?stream=', '?stream=%30', '?stream=0&stream=1', '?stream[]=0', '?one-shot=1', '?'];
  const paths = [
    ...versions.flatMap((v) => queries.map((q) => `/v${v}/containers/web/stats${q}`)),
    ...['gone', 'broken', 'a%2Fb', 'we%ZZb'].flatMap((id) => versions.map((v) => `/v${v}/containers/${id}/stats?stream=0`)),
    '/containers/web/stats?stream=0', '/v1.17/containers/web/stats?stream=0', '/v1.25/containers/web/stats?stream=0', '/v1.x/containers/web/stats',
    '/v1.24/containers/web/stats/', '/v1.24/CONTAINERS/web/stats', '/v1.24//containers/web/stats', '/v1.24/containers/./web/stats',
  ];
  test.each(paths)('%s', async (path) => {
    const [x, y] = await leanAndExpressAnswers(t, 'GET', path);
    expect(x).toEqual(y);
  });

  test('the plain requests take the lean path', async () => {
    t.leanCalls = 0;
    for (const v of versions) await rawAnswer(t.lean.port, 'GET', `/v${v}/containers/web/stats?stream=0`);
    await rawAnswer(t.lean.port, 'GET', '/v1.24/containers/web/stats');
    await rawAnswer(t.lean.port, 'GET', '/v1.24/containers/gone/stats?stream=1');
    expect(t.leanCalls).toBe(versions.length + 2);
  });
});
