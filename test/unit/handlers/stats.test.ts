// handlers/stats over a real socket with a fake backend: one reading with stream=0 (from 1.19), a stream of them.
import { statsRoutes, StatsBackend } from '../../../src/handlers/stats';
import type { StatsReading } from '../../../src/translate/response/stats';
import { containerRecord, fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

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
