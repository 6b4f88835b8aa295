// handlers/stats over a real socket with a fake backend: one reading with stream=0 (from 1.19), a stream of them;
// the lean path's answers against express's.
import * as net from 'node:net';
import { notFound } from '../../../src/errors';
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
  let leanCalls = 0;
  const lean = routes.map((r) => ({ ...r, lean: r.lean && { ...r.lean, handler: (...a: Parameters<NonNullable<typeof r.lean>['handler']>) => (leanCalls++, r.lean!.handler(...a)) } }));
  const viaExpress = routes.map((r) => ({ ...r, lean: undefined }));
  let a: Served;
  let b: Served;
  beforeAll(async () => ((a = await serveRoutes(lean)), (b = await serveRoutes(viaExpress))));
  afterAll(async () => Promise.all([a.close(), b.close()]));

  /** The raw answer (status line, headers in order, body) without its Date. */
  const raw = (port: number, path: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.connect(port, '127.0.0.1', () => c.end(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      let out = '';
      c.on('data', (d) => (out += d.toString('latin1')));
      c.on('end', () => resolve(out.replace(/^Date: .*\r\n/m, '')));
      c.on('error', reject);
    });

  const versions = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];
  const queries = ['', '?stream=0', '?stream=1', '?stream=false', '?stream=', '?stream=%30', '?stream=0&stream=1', '?stream[]=0', '?one-shot=1', '?'];
  const paths = [
    ...versions.flatMap((v) => queries.map((q) => `/v${v}/containers/web/stats${q}`)),
    ...['gone', 'broken', 'a%2Fb', 'we%ZZb'].flatMap((id) => versions.map((v) => `/v${v}/containers/${id}/stats?stream=0`)),
    '/containers/web/stats?stream=0', '/v1.17/containers/web/stats?stream=0', '/v1.25/containers/web/stats?stream=0', '/v1.x/containers/web/stats',
    '/v1.24/containers/web/stats/', '/v1.24/CONTAINERS/web/stats', '/v1.24//containers/web/stats', '/v1.24/containers/./web/stats',
  ];
  // (express's own HTML error page, for a parameter it cannot decode, carries the stack: its head is compared)
  const comparable = (r: string) => (/^Content-Type: text\/html/m.test(r) ? r.replace(/^Content-Length: .*\r\n/m, '').replace(/<pre>[^]*<\/pre>/, '') : r);
  test.each(paths)('%s', async (path) => {
    const [x, y] = await Promise.all([raw(a.port, path), raw(b.port, path)]);
    expect(comparable(x)).toEqual(comparable(y));
  });

  test('the plain requests take the lean path', async () => {
    leanCalls = 0;
    for (const v of versions) await raw(a.port, `/v${v}/containers/web/stats?stream=0`);
    await raw(a.port, '/v1.24/containers/web/stats');
    await raw(a.port, '/v1.24/containers/gone/stats?stream=1');
    expect(leanCalls).toBe(versions.length + 2);
  });
});
