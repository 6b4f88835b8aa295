// handlers/swarm over a real socket with a fake backend: a node outside a swarm (406), init/leave/update handing
// the request on, the services answers (the plugin routes are handlers/plugins.ts).
import { swarmRoutes, SwarmBackend } from '../../../src/handlers/swarm';
import { notAcceptable } from '../../../src/errors';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const calls: unknown[][] = [];
const swarm = fake<SwarmBackend>({
  inspect: async () => {
    throw notAcceptable('This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.');
  },
  init: async (req) => {
    calls.push(['init', req]);
    return 'node1';
  },
  leave: async (force) => {
    calls.push(['leave', force]);
    throw notAcceptable('This node is not part of a swarm');
  },
  update: async (version, _spec, rotate) => void calls.push(['update', version, rotate]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(swarmRoutes(swarm))));
afterAll(() => s.close());

test('GET /swarm outside a swarm: 406 in the version\'s error shape', async () => {
  expect(await s.request('GET', '/swarm')).toMatchObject({ status: 406, text: '{"message":"This node is not a swarm manager. Use \\"docker swarm init\\" or \\"docker swarm join\\" to connect this node to swarm and try again."}\n' });
});

test('init answers the node id; an empty body is refused; leave passes force', async () => {
  const r = await s.request('POST', '/swarm/init', JSON.stringify({ ListenAddr: '127.0.0.1:2377' }), { 'Content-Type': 'application/json' });
  expect([r.status, r.text]).toEqual([200, '"node1"\n']);
  expect(calls.pop()).toEqual(['init', { ListenAddr: '127.0.0.1:2377' }]);
  expect(await s.request('POST', '/swarm/init')).toMatchObject({ status: 400, text: '{"message":"got EOF while reading request body"}\n' });
  expect(await s.request('POST', '/v1.23/swarm/leave?force=1')).toMatchObject({ status: 406, text: 'This node is not part of a swarm\n' });
  expect(calls.pop()).toEqual(['leave', true]);
});

test('update reads the version and the token rotations', async () => {
  const r = await s.request('POST', '/swarm/update?version=7&rotateWorkerToken=1', JSON.stringify({}), { 'Content-Type': 'application/json' });
  expect(r.status).toBe(200);
  expect(calls.pop()).toEqual(['update', 7, { worker: true, manager: false }]);
});
