// The lean path (http/app LeanRoute) of GET and HEAD /_ping and GET /containers/{id}/json answers byte for byte as
// the same routes through express, versioned and not, for the plain requests it takes and the others it leaves to
// express; the plain ones take it. (The stats route's: test/unit/handlers/stats.test.ts.)
import { containerRoutes, ContainersBackend, ExecIdsBackend } from '../../src/handlers/containers';
import { systemRoutes, SystemBackend } from '../../src/handlers/system';
import { notFound } from '../../src/errors';
import type { Route } from '../../src/http/app';
import { containerRecord, fake } from '../helpers/fakes';
import { LeanAndExpress, leanAndExpressAnswers, rawAnswer, serveLeanAndExpress } from '../helpers/serve-routes';

const containers = fake<ContainersBackend>({
  find: (ref) => {
    if (ref === 'gone') throw notFound('No such container: gone');
    if (ref === 'broken') throw new Error('not a berth error');
    return containerRecord({ Name: `/${ref}` });
  },
  sizes: async () => ({ sizeRw: 12, sizeRootFs: 3400 }),
  graphDriverData: async () => ({ LowerDir: '/l', MergedDir: '/m', UpperDir: '/u', WorkDir: '/w' }),
});
const routes: Route[] = [
  ...systemRoutes(fake<SystemBackend>({})),
  ...containerRoutes(containers, fake<ExecIdsBackend>({ idsFor: (id) => (id.startsWith('c') ? ['e1', 'e2'] : []) })),
];
let t: LeanAndExpress;
beforeAll(async () => (t = await serveLeanAndExpress(routes)));
afterAll(() => t.close());

const versions = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];
const prefixes = ['', ...versions.map((v) => `/v${v}`)];
const oddPrefixes = ['/v1.17', '/v1.25', '/v1.x', '/v1.2.3', '/v01.24', '/V1.24', '/v1.24/', '/v'];

describe('/_ping', () => {
  const paths = [
    ...prefixes.map((p) => `${p}/_ping`),
    ...oddPrefixes.map((p) => `${p}/_ping`),
    '/_ping?', '/_ping?x=1', '/_ping/', '/_PING', '//_ping', '/./_ping', '/_ping%20', '/_p%69ng', '/_ping#x', '/v1.24/_ping?a=%ZZ',
  ];
  test.each(['GET', 'HEAD', 'POST', 'OPTIONS'].flatMap((m) => paths.map((p) => [m, p])))('%s %s', async (method, path) => {
    const [x, y] = await leanAndExpressAnswers(t, method, path);
    expect(x).toEqual(y);
  });

  test('the plain requests take the lean path', async () => {
    t.leanCalls = 0;
    for (const p of prefixes) for (const m of ['GET', 'HEAD']) await rawAnswer(t.lean.port, m, `${p}/_ping`);
    expect(t.leanCalls).toBe(prefixes.length * 2);
  });
});

describe('GET /containers/{id}/json', () => {
  const queries = ['', '?size=1', '?size=0', '?size=true', '?size=', '?size=%31', '?size=1&size=0', '?size[]=1', '?other=1', '?'];
  const paths = [
    ...prefixes.flatMap((p) => queries.map((q) => `${p}/containers/web/json${q}`)),
    ...['gone', 'broken', 'a%2Fb', 'we%ZZb', 'cafe'].flatMap((id) => ['', '/v1.18', '/v1.24'].map((p) => `${p}/containers/${id}/json?size=1`)),
    ...oddPrefixes.map((p) => `${p}/containers/web/json`),
    '/v1.24/containers/web/json/', '/v1.24/CONTAINERS/web/json', '/v1.24//containers/web/json', '/v1.24/containers/./web/json', '/v1.24/containers/json',
    '/v1.24/containers/a/b/json',
  ];
  test.each(['GET', 'HEAD'].flatMap((m) => paths.map((p) => [m, p])))('%s %s', async (method, path) => {
    const [x, y] = await leanAndExpressAnswers(t, method, path);
    expect(x).toEqual(y);
  });

  test('the plain requests take the lean path', async () => {
    t.leanCalls = 0;
    for (const p of prefixes) await rawAnswer(t.lean.port, 'GET', `${p}/containers/web/json`);
    await rawAnswer(t.lean.port, 'GET', '/v1.24/containers/web/json?size=1');
    await rawAnswer(t.lean.port, 'GET', '/v1.24/containers/gone/json');
    expect(t.leanCalls).toBe(prefixes.length + 2);
  });
});
