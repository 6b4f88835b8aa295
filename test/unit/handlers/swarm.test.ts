// handlers/swarm (no backend: the answers of a node outside a swarm) over a real socket.
import { swarmRoutes } from '../../../src/handlers/swarm';
import { serveRoutes, Served } from '../../helpers/serve-routes';

let s: Served;
beforeAll(async () => (s = await serveRoutes(swarmRoutes())));
afterAll(() => s.close());

test('swarm, node, task and service routes answer 406 not a manager', async () => {
  const r = await s.request('GET', '/swarm');
  expect([r.status, r.text]).toEqual([406, '{"message":"This node is not a swarm manager. Use \\"docker swarm init\\" or \\"docker swarm join\\" to connect this node to swarm and try again."}\n']);
  expect((await s.request('GET', '/v1.24/services/x')).status).toBe(406);
});

test('leave is 406 not in a swarm, init 503, plugins an empty list', async () => {
  expect(await s.request('POST', '/v1.23/swarm/leave')).toMatchObject({ status: 406, text: 'This node is not part of a swarm\n' });
  expect(await s.request('POST', '/swarm/init')).toMatchObject({ status: 503, text: '{"message":"swarm mode is not available in this build of berth"}\n' });
  expect(await s.request('GET', '/plugins')).toMatchObject({ status: 200, text: '[]\n' });
});
