// Swarm mode on etcd, one node (docs/swarm.md): docker swarm init / join-token / update / leave, node update and
// its refusals, tasks, /info, the shapes of /swarm, /nodes and /tasks against the reference's (golden), and a
// SIGKILLed berth that comes back in the same swarm without re-initialising.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSwarmNode, SwarmNode } from '../helpers/swarm-node';
import { shapeOfSwarm } from '../helpers/swarm-golden';

const golden = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'golden', 'swarm', '1.24.json'), 'utf8'));
const PORT = 23770;
let a: SwarmNode;

beforeAll(async () => {
  a = await startSwarmNode(31, PORT);
});

afterAll(async () => {
  await a?.close();
});

const enc = (f: object) => encodeURIComponent(JSON.stringify(f));

test('outside a swarm: 406 for swarm, nodes and tasks; 503 for leave', async () => {
  for (const p of ['/swarm', '/nodes', '/nodes/x', '/tasks', '/tasks/x']) {
    const r = await a.request('GET', '/v1.24' + p);
    expect(r.status).toBe(406);
    expect(r.json().message).toMatch(/^This node is not a swarm manager\. Use "docker swarm init"/);
  }
  const leave = await a.request('POST', '/v1.24/swarm/leave');
  expect([leave.status, leave.json()]).toEqual([503, { message: 'This node is not part of a swarm' }]);
  expect((await a.docker(['info', '--format', '{{.Swarm.LocalNodeState}}'])).stdout.trim()).toBe('inactive');
});

test('init: bad input answers as the reference', async () => {
  const bad = await a.request('POST', '/v1.24/swarm/init', { body: { ListenAddr: `${a.ip}:${PORT}`, AdvertiseAddr: 'notanaddr' } });
  expect([bad.status, bad.json()]).toEqual([400, { message: 'advertise address must be a non-zero IP address or network interface (with optional port number)' }]);
  const garbled = await a.request('POST', '/v1.24/swarm/init', { body: '{bad', headers: { 'Content-Type': 'application/json' } });
  expect(garbled.status).toBe(400);
  const empty = await a.request('POST', '/v1.24/swarm/init', { body: '', headers: { 'Content-Type': 'application/json' } });
  expect([empty.status, empty.json()]).toEqual([400, { message: 'got EOF while reading request body' }]);
  expect(fs.existsSync(path.join(a.dataRoot, 'swarm'))).toBe(false);
});

let nodeId = '';

test('docker swarm init makes a one-node swarm; a second init is 503', async () => {
  const t0 = Date.now();
  const init = await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr]);
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  nodeId = /current node \((\w+)\) is now a manager/.exec(init.stdout)![1];
  expect(init.stdout).toContain(`docker swarm join --token SWMTKN-1-`);
  expect(Date.now() - t0).toBeLessThan(10_000);
  const again = await a.request('POST', '/v1.24/swarm/init', { body: { ListenAddr: a.addr, AdvertiseAddr: a.ip } });
  expect([again.status, again.json()]).toEqual([503, { message: 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.' }]);
  const ls = await a.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.Availability}} {{.ManagerStatus}} {{.Self}}']);
  expect(ls.stdout.trim()).toBe(`${nodeId} Ready Active Leader true`);
});

test('GET /swarm, /nodes, /tasks and /info are shaped like the reference', async () => {
  const swarm = (await a.request('GET', '/v1.24/swarm')).json();
  const nodes = (await a.request('GET', '/v1.24/nodes')).json();
  const tasks = (await a.request('GET', '/v1.24/tasks')).json();
  const info = (await a.request('GET', '/v1.24/info')).json().Swarm;
  expect(shapeOfSwarm({ swarm, nodes, tasks, infoSwarm: info })).toEqual(shapeOfSwarm(golden));
  // berth's own values where the reference's are instance-specific
  expect(swarm.JoinTokens.Worker).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
  expect(swarm.JoinTokens.Manager.split('-')[2]).toBe(swarm.JoinTokens.Worker.split('-')[2]);
  expect(swarm.Spec.Dispatcher.HeartbeatPeriod).toBe(5e9);
  expect(nodes[0].Status).toEqual({ State: 'ready', Addr: a.ip });
  expect(nodes[0].ManagerStatus).toEqual({ Leader: true, Reachability: 'reachable', Addr: a.addr });
  expect(info).toMatchObject({ NodeID: nodeId, NodeAddr: a.ip, LocalNodeState: 'active', ControlAvailable: true, RemoteManagers: [{ NodeID: nodeId, Addr: a.addr }], Nodes: 1, Managers: 1 });
  expect(tasks).toEqual([]);
});

test('join-token, rotation and swarm update --task-history-limit', async () => {
  const w1 = (await a.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  const m1 = (await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim();
  expect(w1).not.toBe(m1);
  const rot = await a.docker(['swarm', 'join-token', '--rotate', '-q', 'worker']);
  expect(rot.code).toBe(0);
  const w2 = rot.stdout.trim();
  expect(w2).not.toBe(w1);
  expect((await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim()).toBe(m1);
  const before = (await a.request('GET', '/v1.24/swarm')).json();
  expect((await a.docker(['swarm', 'update', '--task-history-limit', '3'])).code).toBe(0);
  const after = (await a.request('GET', '/v1.24/swarm')).json();
  expect(after.Spec.Orchestration.TaskHistoryRetentionLimit).toBe(3);
  expect(after.Spec.Raft).toEqual(before.Spec.Raft);
  expect(after.Version.Index).toBeGreaterThan(before.Version.Index);
  // a stale version: the reference's message, 409 (the reference answers 500)
  const stale = await a.request('POST', `/v1.24/swarm/update?version=${before.Version.Index}`, { body: after.Spec });
  expect([stale.status, stale.json()]).toEqual([409, { message: 'rpc error: code = Unknown desc = update out of sequence' }]);
  // the reference's minimum node certificate expiry (400 there too)
  const short = await a.request('POST', `/v1.24/swarm/update?version=${after.Version.Index}`, { body: { ...after.Spec, CAConfig: { NodeCertExpiry: 60e9 } } });
  expect([short.status, short.json()]).toEqual([400, { message: 'rpc error: code = InvalidArgument desc = minimum certificate expiry time is: 1h0m0s' }]);
  const noVersion = await a.request('POST', '/v1.24/swarm/update', { body: after.Spec });
  expect([noVersion.status, noVersion.json()]).toEqual([400, { message: 'invalid swarm version \'\': strconv.ParseUint: parsing "": invalid syntax' }]);
});

test('node update, and the refusals of update, demote and remove', async () => {
  expect((await a.docker(['node', 'update', '--availability', 'drain', '--label-add', 'zone=a', nodeId])).code).toBe(0);
  const n = (await a.request('GET', `/v1.24/nodes/${nodeId}`)).json();
  expect(n.Spec).toEqual({ Labels: { zone: 'a' }, Role: 'manager', Availability: 'drain' });
  const byName = await a.request('GET', `/v1.24/nodes/${n.Description.Hostname}`);
  expect(byName.json().ID).toBe(nodeId);
  const spec = { Role: 'manager', Availability: 'active' };
  const stale = await a.request('POST', `/v1.24/nodes/${nodeId}/update?version=1`, { body: spec });
  expect([stale.status, stale.json()]).toEqual([409, { message: 'rpc error: code = Unknown desc = update out of sequence' }]);
  const noVersion = await a.request('POST', `/v1.24/nodes/${nodeId}/update`, { body: spec });
  expect([noVersion.status, noVersion.json()]).toEqual([400, { message: 'invalid node version \'\': strconv.ParseUint: parsing "": invalid syntax' }]);
  const noRole = await a.request('POST', `/v1.24/nodes/${nodeId}/update?version=${n.Version.Index}`, { body: { Availability: 'active' } });
  expect([noRole.status, noRole.json()]).toEqual([400, { message: 'invalid Role: ""' }]);
  const demote = await a.docker(['node', 'demote', nodeId]);
  expect(demote.stderr).toContain('attempting to demote the last manager of the swarm');
  const del = await a.request('DELETE', `/v1.24/nodes/${nodeId}?force=1`);
  expect(del.status).toBe(400);
  expect(del.json().message).toContain('is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal');
  expect((await a.request('GET', '/v1.24/nodes/nope')).status).toBe(404);
  expect((await a.request('GET', '/v1.24/nodes/nope')).json()).toEqual({ message: 'node nope not found' });
  const role = await a.request('GET', `/v1.24/nodes?filters=${enc({ role: ['worker'] })}`);
  expect(role.json()).toEqual([]);
  expect((await a.request('GET', `/v1.24/nodes?filters=${enc({ role: ['manager'] })}`)).json()).toHaveLength(1);
  expect((await a.request('GET', `/v1.24/nodes?filters=${enc({ label: ['zone=a'] })}`)).json()).toHaveLength(1);
  expect((await a.request('GET', `/v1.24/nodes?filters=${enc({ role: ['nope'] })}`)).json()).toEqual({ message: "Invalid role filter: 'nope'" });
  expect((await a.request('GET', `/v1.24/nodes?filters=${enc({ bogus: ['x'] })}`)).status).toBe(400);
});

test('tasks: empty list, unknown task and service 404, bad filter 400', async () => {
  expect((await a.request('GET', '/v1.24/tasks/nope')).json()).toEqual({ message: 'task nope not found' });
  const svc = await a.request('GET', `/v1.24/tasks?filters=${enc({ service: ['nope'] })}`);
  expect([svc.status, svc.json()]).toEqual([404, { message: 'service nope not found' }]);
  const bad = await a.request('GET', `/v1.24/tasks?filters=${enc({ bogus: ['x'] })}`);
  expect([bad.status, bad.json()]).toEqual([400, { message: "Invalid filter 'bogus'" }]);
  expect((await a.request('GET', `/v1.24/tasks?filters=${enc({ node: [nodeId] })}`)).json()).toEqual([]);
});

test('a SIGKILLed berth comes back in the same swarm, nothing re-initialised', async () => {
  const before = (await a.request('GET', '/v1.24/swarm')).json();
  await a.kill();
  await a.start();
  const after = (await a.request('GET', '/v1.24/swarm')).json();
  expect(after).toEqual(before);
  const ls = await a.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.ManagerStatus}}']);
  expect(ls.stdout.trim()).toBe(`${nodeId} Ready Leader`);
});

const etcdArgs = (): string[] => {
  const pid = Number(fs.readFileSync(path.join(a.dataRoot, 'swarm', 'etcd.pid'), 'utf8'));
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
};
const flag = (args: string[], name: string): string | undefined => args[args.indexOf(name) + 1];

test('Spec.Raft: the etcd member runs with it (ticks of 100 ms); an update applies from the member\'s next start', async () => {
  const raftFlags = () => ['--heartbeat-interval', '--election-timeout', '--snapshot-count', '--max-snapshots'].map((f) => flag(etcdArgs(), f));
  expect(raftFlags()).toEqual(['100', '1000', '10000', '1']);
  const cur = (await a.request('GET', '/v1.24/swarm')).json();
  const Raft = { SnapshotInterval: 20000, KeepOldSnapshots: 2, LogEntriesForSlowFollowers: 700, ElectionTick: 20, HeartbeatTick: 2 };
  const upd = await a.request('POST', `/v1.24/swarm/update?version=${cur.Version.Index}`, { body: { ...cur.Spec, Raft } });
  expect(upd.status).toBe(200);
  expect((await a.request('GET', '/v1.24/swarm')).json().Spec.Raft).toEqual(Raft);
  // recorded for the member's next start within a reconcile round; the running member keeps its settings
  const statePath = path.join(a.dataRoot, 'swarm', 'state.json');
  for (let i = 0; i < 50 && JSON.parse(fs.readFileSync(statePath, 'utf8')).etcd?.raft?.heartbeatMs !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  expect(raftFlags()).toEqual(['100', '1000', '10000', '1']);
  await a.kill(true);
  await a.start();
  expect(raftFlags()).toEqual(['200', '2000', '20000', '3']);
  const ls = await a.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.ManagerStatus}}']);
  expect(ls.stdout.trim()).toBe(`${nodeId} Ready Leader`);
});

test('leave: the last manager needs --force; afterwards the node is outside the swarm and etcd is stopped', async () => {
  const pid = Number(fs.readFileSync(path.join(a.dataRoot, 'swarm', 'etcd.pid'), 'utf8'));
  const leave = await a.docker(['swarm', 'leave']);
  expect(leave.code).not.toBe(0);
  expect(leave.stderr).toContain('Removing the last manager erases all current state of the swarm. Use `--force` to ignore this message.');
  const forced = await a.docker(['swarm', 'leave', '--force']);
  expect(forced.stdout.trim()).toBe('Node left the swarm.');
  expect((await a.request('GET', '/v1.24/swarm')).status).toBe(406);
  expect((await a.docker(['info', '--format', '{{.Swarm.LocalNodeState}}'])).stdout.trim()).toBe('inactive');
  expect(fs.existsSync(path.join(a.dataRoot, 'swarm'))).toBe(false);
  expect(() => process.kill(pid, 0)).toThrow();
});
