// A swarm of three berth nodes on 127.P.0.41-43 (docs/swarm.md): join as worker and as manager with the docker CLI,
// token checks, node ls/inspect on managers and the worker's refusals, promote/demote (etcd membership follows),
// leave and node rm, heartbeats (a node whose berth stops is down), and the faults: the leader killed with -9 (a new
// leader, the old one down/unreachable within 3 heartbeats, back as a follower after a restart), and quorum lost
// and regained. One cluster for the whole file; every berthd and etcd is stopped in afterAll.
import { startSwarmNode, swarmIP, swarmNodeId as nodeId, SwarmNode, until } from '../helpers/swarm-node';

const PORT = 23780;
const HEARTBEAT_S = 2;
let a: SwarmNode;
let b: SwarmNode;
let c: SwarmNode;

beforeAll(async () => {
  [a, b, c] = await Promise.all([startSwarmNode(41, PORT), startSwarmNode(42, PORT), startSwarmNode(43, PORT)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a, b, c].filter(Boolean).map((n) => n.close()));
}, 60_000);

const ids: Record<string, string> = {};

/** node ls on `on` as "hostname-less" lines: id status availability manager-status, sorted by id. */
async function ls(on: SwarmNode): Promise<Record<string, string>> {
  const r = await on.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.Availability}} {{.ManagerStatus}}']);
  if (r.code !== 0) throw new Error(r.stderr);
  return Object.fromEntries(r.stdout.trim().split('\n').map((l) => {
    const [id, ...rest] = l.split(' ');
    return [id, rest.join(' ').trim()];
  }));
}


/** A CLI run that must succeed (its stderr shown when it does not). */
function ok(r: { code: number; stderr: string }): void {
  expect([r.code, r.stderr]).toEqual([0, '']);
}


test('init on A; B joins as manager, C as worker; the managers list all three', async () => {
  const init = await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr, '--dispatcher-heartbeat', `${HEARTBEAT_S}s`]);
  expect(init.code).toBe(0);
  ids.a = await nodeId(a);
  const workerToken = (await a.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  const managerToken = (await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim();

  const jb = await b.docker(['swarm', 'join', '--token', managerToken, '--advertise-addr', b.ip, '--listen-addr', b.addr, a.addr]);
  expect([jb.code, jb.stdout.trim(), jb.stderr]).toEqual([0, 'This node joined a swarm as a manager.', '']);
  // C's bad joins first: each answer as the reference's, and C stays outside
  const join = (body: object) => c.request('POST', '/v1.24/swarm/join', { body: { ListenAddr: c.addr, AdvertiseAddr: c.ip, RemoteAddrs: [a.addr], ...body } });
  const garbled = await join({ JoinToken: 'SWMTKN-1-garbage' });
  expect([garbled.status, garbled.json()]).toEqual([400, { message: 'invalid join token' }]);
  const parts = workerToken.split('-');
  const badSecret = await join({ JoinToken: [...parts.slice(0, 3), 'a'.repeat(25)].join('-') });
  expect([badSecret.status, badSecret.json()]).toEqual([400, { message: 'rpc error: code = InvalidArgument desc = A valid join token is necessary to join this cluster' }]);
  const badDigest = await join({ JoinToken: [...parts.slice(0, 2), 'b'.repeat(50), parts[3]].join('-') });
  expect(badDigest.status).toBe(400);
  expect(badDigest.json().message).toMatch(/^remote CA does not match fingerprint/);
  const unreachable = await join({ JoinToken: workerToken, RemoteAddrs: [`${swarmIP(49)}:${PORT}`] });
  expect([unreachable.status, unreachable.json()]).toEqual([503, { message: `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp ${swarmIP(49)}:${PORT}: connect: connection refused"` }]);
  const none = await join({ JoinToken: workerToken, RemoteAddrs: [] });
  expect([none.status, none.json()]).toEqual([400, { message: 'at least 1 RemoteAddr is required to join' }]);
  expect((await c.request('GET', '/v1.24/info')).json().Swarm.LocalNodeState).toBe('inactive');
  const jc = await c.docker(['swarm', 'join', '--token', workerToken, '--advertise-addr', c.ip, '--listen-addr', c.addr, b.addr]);
  expect([jc.code, jc.stdout.trim(), jc.stderr]).toEqual([0, 'This node joined a swarm as a worker.', '']);
  ids.b = await nodeId(b);
  ids.c = await nodeId(c);

  const want = { [ids.a]: 'Ready Active Leader', [ids.b]: 'Ready Active Reachable', [ids.c]: 'Ready Active' };
  for (const on of [a, b]) await until('node ls', () => ls(on), (v) => JSON.stringify(v) === JSON.stringify(want), 10_000);
  const inspect = (await b.request('GET', `/v1.24/nodes/${ids.c}`)).json();
  expect(inspect.Status).toEqual({ State: 'ready', Addr: c.ip });
  expect(inspect.ManagerStatus).toBeUndefined();
  expect((await b.request('GET', `/v1.24/nodes/${ids.b}`)).json().ManagerStatus).toEqual({ Reachability: 'reachable', Addr: b.addr });
  const info = (await b.request('GET', '/v1.24/info')).json().Swarm;
  expect(info).toMatchObject({ NodeID: ids.b, ControlAvailable: true, Nodes: 3, Managers: 2 });
  expect(info.RemoteManagers.map((m: { Addr: string }) => m.Addr).sort()).toEqual([a.addr, b.addr]);
});

test('a worker refuses cluster reads; join errors answer as the reference', async () => {
  const w = await c.request('GET', '/v1.24/nodes');
  expect([w.status, w.json().message]).toEqual([503, "This node is not a swarm manager. Worker nodes can't be used to view or modify cluster state. Please run this command on a manager node or promote the current node to a manager."]);
  const info = (await c.request('GET', '/v1.24/info')).json().Swarm;
  expect(info).toEqual({ NodeID: ids.c, NodeAddr: c.ip, LocalNodeState: 'active', ControlAvailable: false, Error: '', RemoteManagers: expect.any(Array) });
  const again = await c.request('POST', '/v1.24/swarm/join', { body: { ListenAddr: c.addr, RemoteAddrs: [a.addr], JoinToken: 'x' } });
  expect([again.status, again.json().message]).toEqual([503, 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.']);
});

test('promote and demote move etcd membership', async () => {
  ok(await a.docker(['node', 'promote', ids.c]));
  await until('C promoted', () => ls(a), (v) => v[ids.c] === 'Ready Active Reachable', 20_000);
  await until('C serves as a manager', () => c.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 200, 20_000);
  expect((await c.request('GET', '/v1.24/info')).json().Swarm.Managers).toBe(3);
  ok(await a.docker(['node', 'demote', ids.c]));
  await until('C demoted', () => c.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 503, 20_000);
  expect((await ls(b))[ids.c]).toBe('Ready Active');
  ok(await a.docker(['node', 'promote', ids.c]));
  await until('C promoted again', () => c.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 200, 20_000);
});

let failoverMs = 0;

/**
 * node ls's columns read straight from the API (a poll costs milliseconds, where a CLI run costs a process start,
 * which on a loaded machine is itself a good part of a heartbeat): the failover time measures berth, not the poll.
 */
async function lsApi(on: SwarmNode): Promise<Record<string, string>> {
  const r = await on.request('GET', '/v1.24/nodes');
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return Object.fromEntries(
    (r.json() as { ID: string; Status: { State: string }; Spec: { Availability: string }; ManagerStatus?: { Leader?: boolean; Reachability: string } }[]).map((n) => [
      n.ID,
      [cap(n.Status.State), cap(n.Spec.Availability), n.ManagerStatus ? (n.ManagerStatus.Leader ? 'Leader' : cap(n.ManagerStatus.Reachability)) : ''].join(' ').trim(),
    ]),
  );
}

test('kill -9 the leader of 3 managers: a new leader, the old one down within 3 heartbeats; restarted, a follower', async () => {
  await a.kill(true);
  const t0 = Date.now();
  let leader = '';
  try {
    // every 50 ms: the moment it holds is known to within a poll, not within a CLI run
    const deadline = 3 * HEARTBEAT_S * 1000 + 2000;
    let down: Record<string, string> | undefined;
    while (!down && Date.now() - t0 < deadline) {
      const v = await lsApi(b).catch(() => undefined);
      if (v && v[ids.a] === 'Down Active Unreachable' && Object.values(v).some((s) => s.endsWith('Leader'))) down = v;
      else await new Promise((r) => setTimeout(r, 50));
    }
    failoverMs = Date.now() - t0;
    expect(down).toBeDefined();
    expect(failoverMs).toBeLessThanOrEqual(3 * HEARTBEAT_S * 1000);
    leader = Object.entries(down!).find(([, s]) => s.endsWith('Leader'))![0];
    expect([ids.b, ids.c]).toContain(leader);
    // the CLI shows the same
    expect((await ls(b))[ids.a]).toBe('Down Active Unreachable');
  } finally {
    // restarted whatever happened above, so the tests after this one start from three managers
    await a.start();
  }
  await until('A back as a follower', () => ls(b), (v) => v[ids.a] === 'Ready Active Reachable' && v[leader] === 'Ready Active Leader', 20_000);
  expect((await ls(a))[ids.a]).toBe('Ready Active Reachable');
});

test('quorum lost (2 of 3 managers down): reads and writes answer no leader; back, the cluster resumes', async () => {
  await Promise.all([b.kill(true), c.kill(true)]);
  try {
    const noLeader = "rpc error: code = Unknown desc = The swarm does not have a leader. It's possible that too few managers are online. Make sure more than half of the managers are online.";
    const read = await until('no leader on read', () => a.request('GET', '/v1.24/nodes'), (r) => r.status === 500, 30_000);
    expect(read.value.json()).toEqual({ message: noLeader });
    const write = await a.request('POST', `/v1.24/swarm/update?version=1`, { body: {} });
    expect(write.json()).toEqual({ message: noLeader });
    // as a private 20.10 reference answers once its leader has stepped down: every read 500, /info's Error says so
    const tasks = await a.request('GET', '/v1.24/tasks');
    expect([tasks.status, tasks.json()]).toEqual([500, { message: noLeader }]);
    const info = (await a.request('GET', '/v1.24/info')).json().Swarm;
    expect([info.LocalNodeState, info.ControlAvailable, info.Error, info.Nodes, info.Managers]).toEqual(['active', true, noLeader, undefined, undefined]);
  } finally {
    // back whatever happened above, so the tests after this one have their cluster
    await Promise.all([b.start(), c.start()]);
  }
  await until('resumed', () => ls(a), (v) => Object.values(v).filter((s) => s.startsWith('Ready')).length === 3 && Object.values(v).some((s) => s.endsWith('Leader')), 30_000);
});

test('leave and node rm: a manager needs --force; a worker that left is down and can be removed', async () => {
  ok(await a.docker(['node', 'demote', ids.c]));
  await until('C a worker', () => c.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 503, 20_000);
  const upRm = await a.request('DELETE', `/v1.24/nodes/${ids.c}`);
  expect([upRm.status, upRm.json().message]).toEqual([400, `rpc error: code = FailedPrecondition desc = node ${ids.c} is not down and can't be removed`]);
  expect((await c.docker(['swarm', 'leave'])).stdout.trim()).toBe('Node left the swarm.');
  await until('C down', () => ls(a), (v) => v[ids.c] === 'Down Active', 3 * HEARTBEAT_S * 1000 + 2000);
  ok(await a.docker(['node', 'rm', ids.c]));
  expect((await ls(a))[ids.c]).toBeUndefined();
  const bLeave = await b.docker(['swarm', 'leave']);
  expect(bLeave.stderr).toContain('You are attempting to leave the swarm on a node that is participating as a manager.');
  ok(await b.docker(['swarm', 'leave', '--force']));
  await until('B gone from the managers', () => a.request('GET', '/v1.24/info').then((r) => r.json().Swarm.Managers), (m) => m === 1, 10_000);
  ok(await a.docker(['swarm', 'leave', '--force']));
});
