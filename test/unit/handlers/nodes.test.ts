// handlers/nodes over a real socket with a fake backend: lists, 404s, update's body and version, remove's force.
import { nodeRoutes, NodesBackend } from '../../../src/handlers/nodes';
import { notFound } from '../../../src/errors';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const calls: unknown[][] = [];
const cluster = fake<NodesBackend>({
  tasks: async (filters) => {
    calls.push(['tasks', Object.fromEntries(filters)]);
    return [];
  },
  node: async (ref) => {
    throw notFound(`node ${ref} not found`);
  },
  removeNode: async (ref, force) => void calls.push(['remove', ref, force]),
  updateNode: async (ref, version) => void calls.push(['update', ref, version]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(nodeRoutes(cluster))));
afterAll(() => s.close());

test('tasks: the filters reach the backend; an empty list', async () => {
  const r = await s.request('GET', `/tasks?filters=${encodeURIComponent('{"node":["n1"]}')}`);
  expect([r.status, r.text]).toEqual([200, '[]\n']);
  expect(calls.pop()).toEqual(['tasks', { node: ['n1'] }]);
});

test('a missing node is a 404 with the backend\'s message', async () => {
  expect(await s.request('GET', '/nodes/zz')).toMatchObject({ status: 404, text: '{"message":"node zz not found"}\n' });
  expect(await s.request('GET', '/v1.23/nodes/zz')).toMatchObject({ status: 404, text: 'node zz not found\n' });
});

test('update needs a body; remove passes force', async () => {
  expect(await s.request('POST', '/nodes/n1/update?version=3')).toMatchObject({ status: 400, text: '{"message":"got EOF while reading request body"}\n' });
  expect((await s.request('DELETE', '/nodes/n1?force=1')).status).toBe(200);
  expect(calls.pop()).toEqual(['remove', 'n1', true]);
});
