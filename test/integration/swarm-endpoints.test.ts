// A worker's etcd client follows the managers (docs/swarm.md "Membership changes"): W joins when A is the only
// manager (its client knows A's etcd alone), B joins as a manager, A is demoted (its etcd member removed and
// stopped) and leaves: W stays up, heartbeating through B's etcd, and still reads the cluster.
import { startSwarmNode, swarmNodeId as nodeId, SwarmNode, until } from '../helpers/swarm-node';

const PORT = 23730;
let a: SwarmNode;
let b: SwarmNode;
let w: SwarmNode;

beforeAll(async () => {
  [a, b, w] = await Promise.all([startSwarmNode(71, PORT), startSwarmNode(72, PORT), startSwarmNode(73, PORT)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a, b, w].filter(Boolean).map((n) => n.close()));
}, 60_000);

const ok = (r: { code: number; stderr: string }) => expect([r.code, r.stderr]).toEqual([0, '']);


const stateOn = async (on: SwarmNode, id: string) => (await on.request('GET', `/v1.24/nodes/${id}`)).json().Status?.State as string;

test('the worker that knew only the first manager stays up after that manager is demoted and gone', async () => {
  ok(await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr, '--dispatcher-heartbeat', '2s']));
  const worker = (await a.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  const manager = (await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim();
  ok(await w.docker(['swarm', 'join', '--token', worker, '--advertise-addr', w.ip, '--listen-addr', w.addr, a.addr]));
  ok(await b.docker(['swarm', 'join', '--token', manager, '--advertise-addr', b.ip, '--listen-addr', b.addr, a.addr]));
  const [ia, iw] = [await nodeId(a), await nodeId(w)];
  // etcd accepts the next reconfiguration once B's member has been connected for a while: the demote retries
  ok(await b.docker(['node', 'demote', ia]));
  await until('A a worker', () => a.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 503, 20_000);
  expect(await stateOn(b, iw)).toBe('ready');
  ok(await a.docker(['swarm', 'leave']));
  await until('A down on B', () => stateOn(b, ia), (s) => s === 'down', 10_000);
  // three heartbeat periods and more: W's lease lives on through B's etcd, never lapsing
  const seen = new Set<string>();
  for (const t0 = Date.now(); Date.now() - t0 < 7000; ) {
    seen.add(await stateOn(b, iw));
    await new Promise((r) => setTimeout(r, 250));
  }
  expect([...seen]).toEqual(['ready']);
  const info = (await w.request('GET', '/v1.24/info')).json().Swarm;
  expect([info.LocalNodeState, info.Error]).toEqual(['active', '']);
  expect(info.RemoteManagers.map((m: { Addr: string }) => m.Addr)).toEqual([b.addr]);
});
