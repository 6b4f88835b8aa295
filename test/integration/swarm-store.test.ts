// Swarm mode on an existing etcd (`--cluster-store etcd://…`, docs/swarm.md "An existing etcd"): the test starts a
// real etcd on 127.P.0.57; two berth nodes started with the flag init and join as managers without etcd members of
// their own, lose and regain the leader through etcd's election, promote and demote without membership changes, and
// the last leave erases the swarm's keys from the store.
import { spawn, ChildProcess } from 'node:child_process';
import { Etcd3 } from 'etcd3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exited, startSwarmNode, swarmIP, swarmNodeId as nodeId, SwarmNode, until } from '../helpers/swarm-node';

const PORT = 23750;
const ETCD_PORT = 23757;
let etcd: ChildProcess;
let etcdDir: string;
let a: SwarmNode;
let b: SwarmNode;
const store = `${swarmIP(57)}:${ETCD_PORT}`;

let kv: Etcd3;
const swarmKeys = () => kv.getAll().prefix('/berth/swarm/').keys();
const memberCount = async () => (await kv.cluster.memberList({})).members.length;

beforeAll(async () => {
  etcdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-store-'));
  const url = `http://${store}`;
  const peer = `http://${swarmIP(57)}:${ETCD_PORT + 1}`;
  etcd = spawn('etcd', ['--name', 'store', '--data-dir', path.join(etcdDir, 'data'), '--listen-client-urls', url, '--advertise-client-urls', url, '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `store=${peer}`, '--heartbeat-interval', '100', '--election-timeout', '1000', '--log-outputs', path.join(etcdDir, 'etcd.log'), '--logger', 'zap'], { stdio: 'ignore' });
  kv = new Etcd3({ hosts: url });
  for (let i = 0; i < 100; i++) {
    if (await kv.get('x').then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const flags = ['--cluster-store', `etcd://${store}`];
  [a, b] = await Promise.all([startSwarmNode(51, PORT, flags), startSwarmNode(52, PORT, flags)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((n) => n.close()));
  kv?.close();
  etcd?.kill('SIGKILL');
  if (etcd) await exited(etcd);
  fs.rmSync(etcdDir, { recursive: true, force: true });
}, 60_000);


async function ls(on: SwarmNode): Promise<Record<string, string>> {
  const r = await on.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.ManagerStatus}}']);
  if (r.code !== 0) throw new Error(r.stderr);
  return Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.split(' ')[0], l.split(' ').slice(1).join(' ')]));
}

const ids: Record<string, string> = {};
const ok = (r: { code: number; stderr: string }) => expect([r.code, r.stderr]).toEqual([0, '']);

test('init and join on the store: no etcd member of their own, the swarm keys in the store', async () => {
  // /info shows the flag as given, as the reference shows its --cluster-store
  expect((await a.request('GET', '/v1.24/info')).json().ClusterStore).toBe(`etcd://${store}`);
  ok(await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr, '--dispatcher-heartbeat', '2s']));
  ids.a = await nodeId(a);
  const token = (await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim();
  const jb = await b.docker(['swarm', 'join', '--token', token, '--advertise-addr', b.ip, '--listen-addr', b.addr, a.addr]);
  expect([jb.code, jb.stdout.trim()]).toEqual([0, 'This node joined a swarm as a manager.']);
  ids.b = await nodeId(b);
  for (const n of [a, b]) expect(fs.existsSync(path.join(n.dataRoot, 'swarm', 'etcd.pid'))).toBe(false);
  await until('both listed', () => ls(b), (v) => v[ids.a] === 'Ready Leader' && v[ids.b] === 'Ready Reachable', 10_000);
  const keys = await swarmKeys();
  expect(keys).toEqual(expect.arrayContaining(['/berth/swarm/cluster', `/berth/swarm/nodes/${ids.a}`, `/berth/swarm/nodes/${ids.b}`]));
  expect(await memberCount()).toBe(1);
});

test('the leader killed: the other manager leads, the old one down; back, a follower', async () => {
  await a.kill();
  await until('B leads', () => ls(b), (v) => v[ids.a] === 'Down Unreachable' && v[ids.b] === 'Ready Leader', 10_000);
  await a.start();
  await until('A back', () => ls(b), (v) => v[ids.a] === 'Ready Reachable' && v[ids.b] === 'Ready Leader', 20_000);
});

test('demote and promote without etcd membership changes', async () => {
  ok(await b.docker(['node', 'demote', ids.a]));
  await until('A a worker', () => a.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 503, 10_000);
  ok(await b.docker(['node', 'promote', ids.a]));
  await until('A a manager', () => a.request('GET', '/v1.24/nodes').then((r) => r.status), (s) => s === 200, 10_000);
  expect(await memberCount()).toBe(1);
});

test('leave: the last manager\'s forced leave erases the swarm from the store', async () => {
  ok(await b.docker(['swarm', 'leave', '--force']));
  await until('B gone from the managers', () => a.request('GET', '/v1.24/info').then((r) => r.json().Swarm.Managers), (m) => m === 1, 10_000);
  // the store holds A's swarm: B cannot make another one there
  const init = await b.request('POST', '/v1.24/swarm/init', { body: { ListenAddr: b.addr, AdvertiseAddr: b.ip } });
  expect(init.status).toBe(503);
  expect(init.json().message).toMatch(/^the cluster store already holds a swarm \(cluster \w+\): join it, or use another store$/);
  expect((await b.request('GET', '/v1.24/swarm')).status).toBe(406);
  ok(await a.docker(['swarm', 'leave', '--force']));
  expect(await swarmKeys()).toEqual([]);
  expect((await a.request('GET', '/v1.24/swarm')).status).toBe(406);
});
