// Swarm services on three berth nodes on 127.P.0.51-53 (docs/services.md) with the docker CLI: tasks spread over the
// nodes, constraints on node labels, global mode on every node, scale, a rolling update, drain, a worker's berthd
// killed (its tasks run elsewhere within 3 heartbeats plus scheduling; back, it reports its old tasks shut down, none
// duplicated), and the leader killed during a rolling update (the new leader finishes it, no slot lost or doubled).
import { cliOk as ok, closeSwarmNodes, formSwarm, startSwarmNodes } from '../helpers/swarm-cluster';
import { SwarmNode, until } from '../helpers/swarm-node';

jest.setTimeout(180_000);

const PORT = 23880;
const HEARTBEAT_S = 2;
let a: SwarmNode;
let b: SwarmNode;
let c: SwarmNode;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [a, b, c] = await startSwarmNodes([51, 52, 53], PORT, { busybox: true });
}, 120_000);

afterAll(async () => {
  await closeSwarmNodes([a, b, c]);
}, 60_000);

const enc = (f: object) => encodeURIComponent(JSON.stringify(f));

/** The tasks of a service as a manager lists them. */
async function tasksOf(on: SwarmNode, service: string): Promise<any[]> {
  const r = await on.request('GET', `/v1.24/tasks?filters=${enc({ service: [service] })}`);
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.json();
}

const running = (ts: any[]) => ts.filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');
/** Running tasks per node name (a, b, c). */
const perNode = (ts: any[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const t of running(ts)) {
    const n = Object.keys(ids).find((k) => ids[k] === t.NodeID) ?? '?';
    out[n] = (out[n] ?? 0) + 1;
  }
  return out;
};

/** Task containers running on a node (its own berth's view). */
async function containersOn(n: SwarmNode, prefix: string): Promise<string[]> {
  const r = await n.docker(['ps', '--format', '{{.Names}}']);
  return r.stdout.split('\n').filter((x) => x.startsWith(prefix + '.')).sort();
}

test('a swarm of A and B (managers) and C (worker)', async () => {
  [ids.a, ids.b, ids.c] = await formSwarm([a, b, c], { roles: ['manager', 'worker'], heartbeatS: HEARTBEAT_S });
});

test('replicas spread over the three nodes; a worker runs its tasks; scale to 5', async () => {
  ok(await b.docker(['service', 'create', '--name', 'web', '--replicas', '3', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000']));
  const { value } = await until('3 running', () => tasksOf(a, 'web'), (t) => running(t).length === 3, 60_000);
  expect(perNode(value)).toEqual({ a: 1, b: 1, c: 1 });
  const onC = running(value).find((t) => t.NodeID === ids.c);
  expect(await containersOn(c, 'web')).toEqual([`web.${onC.Slot}.${onC.ID}`]);
  const ps = await a.docker(['service', 'ps', '--format', '{{.Name}} {{.Node}} {{.DesiredState}}', 'web']);
  expect(ps.stdout.trim().split('\n')).toHaveLength(3);
  ok(await a.docker(['service', 'scale', 'web=5']));
  const s = await until('5 running', () => tasksOf(a, 'web'), (t) => running(t).length === 5, 60_000);
  expect(Object.values(perNode(s.value)).sort()).toEqual([1, 2, 2]);
});

test('a constraint on a node label places the task there; global mode runs one task per node', async () => {
  ok(await a.docker(['node', 'update', '--label-add', 'disk=ssd', ids.c]));
  ok(await a.docker(['service', 'create', '--name', 'pinned', '--replicas', '2', '--constraint', 'node.labels.disk==ssd', 'busybox', 'sleep', '1000']));
  const { value } = await until('pinned running', () => tasksOf(a, 'pinned'), (t) => running(t).length === 2, 60_000);
  expect(perNode(value)).toEqual({ c: 2 });
  ok(await a.docker(['service', 'create', '--name', 'glob', '--mode', 'global', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000']));
  const g = await until('glob on 3 nodes', () => tasksOf(a, 'glob'), (t) => running(t).length === 3, 60_000);
  expect(perNode(g.value)).toEqual({ a: 1, b: 1, c: 1 });
  for (const [k, n] of [['a', a], ['b', b], ['c', c]] as const) expect(await containersOn(n, 'glob')).toEqual([`glob.${ids[k]}.${running(g.value).find((t) => t.NodeID === ids[k]).ID}`]);
  ok(await a.docker(['service', 'rm', 'pinned']));
});

test('rolling update --update-parallelism 1 --update-delay 1s: one task at a time, then completed', async () => {
  const before = new Set(running(await tasksOf(a, 'web')).map((t) => t.ID));
  ok(await a.docker(['service', 'update', '--env-add', 'V=2', '--update-parallelism', '1', '--update-delay', '1s', 'web']));
  let maxNew = 0;
  let lastCount = 0;
  const done = await until(
    'web updated',
    async () => {
      const [s, ts] = await Promise.all([a.request('GET', '/v1.24/services/web').then((r) => r.json()), tasksOf(a, 'web')]);
      // never more than one new task starting at a time
      const starting = ts.filter((t) => t.DesiredState === 'running' && t.Spec.ContainerSpec.Env?.includes('V=2') && t.Status.State !== 'running').length;
      maxNew = Math.max(maxNew, starting);
      lastCount = running(ts).length;
      return s.UpdateStatus?.State;
    },
    (st) => st === 'completed',
    120_000,
  );
  expect(done.value).toBe('completed');
  expect(maxNew).toBeLessThanOrEqual(1);
  expect(lastCount).toBe(5);
  const now = running(await tasksOf(a, 'web'));
  expect(now.map((t) => t.Slot).sort()).toEqual([1, 2, 3, 4, 5]);
  for (const t of now) expect(before.has(t.ID)).toBe(false);
});

test("a worker's berthd killed: its tasks run elsewhere within 3 heartbeats plus scheduling; back, they are shut down, not doubled", async () => {
  const ts = running(await tasksOf(a, 'web'));
  const onC = ts.filter((t) => t.NodeID === ids.c).map((t) => t.ID);
  expect(onC.length).toBeGreaterThan(0);
  const t0 = Date.now();
  await c.kill();
  const moved = await until('web back to 5 on A and B', () => tasksOf(a, 'web'), (t) => running(t).length === 5 && running(t).every((x) => x.NodeID !== ids.c), 60_000);
  const ms = Date.now() - t0;
  // lease lapse (1 period) + the orchestrator's grace (1 period) + scheduling and container starts
  expect(ms).toBeLessThan(3 * HEARTBEAT_S * 1000 + 5000);
  for (const id of onC) expect(moved.value.find((t) => t.ID === id).DesiredState).toBe('shutdown');
  // global: no task for the down node
  await until('glob on 2 nodes', () => tasksOf(a, 'glob'), (t) => running(t).length === 2 && running(t).every((x) => x.NodeID !== ids.c), 30_000);
  await c.start();
  // C's agent stops the containers of its old tasks and reports them shut down
  await until('old tasks shut down', () => tasksOf(a, 'web'), (t) => onC.every((id) => t.find((x) => x.ID === id)?.Status.State === 'shutdown'), 60_000);
  await until('no web container on C', () => containersOn(c, 'web'), (n) => n.length === 0, 30_000);
  expect(running(await tasksOf(a, 'web'))).toHaveLength(5);
  // back and ready: the global service runs there again
  await until('glob on 3 nodes', () => tasksOf(a, 'glob'), (t) => running(t).length === 3, 60_000);
});

test('drain: the node\'s tasks move away; active again takes new ones', async () => {
  ok(await a.docker(['node', 'update', '--availability', 'drain', ids.b]));
  const { value } = await until('nothing on B', () => tasksOf(a, 'web'), (t) => running(t).length === 5 && running(t).every((x) => x.NodeID !== ids.b), 60_000);
  expect(perNode(value).b).toBeUndefined();
  await until('no web container on B', () => containersOn(b, 'web'), (n) => n.length === 0, 30_000);
  ok(await a.docker(['node', 'update', '--availability', 'active', ids.b]));
  ok(await a.docker(['service', 'scale', 'web=7']));
  const s = await until('7 running', () => tasksOf(a, 'web'), (t) => running(t).length === 7, 60_000);
  expect(perNode(s.value).b).toBeGreaterThan(0);
});

test('the leader killed during a rolling update: the new leader finishes it, no slot lost or doubled', async () => {
  // three managers, so that etcd keeps its quorum without A
  ok(await a.docker(['node', 'promote', ids.c]));
  await until('C a manager', async () => (await c.request('GET', '/v1.24/info')).json().Swarm.ControlAvailable, (v) => v === true, 30_000);
  ok(await b.docker(['service', 'update', '--env-add', 'V=3', '--update-parallelism', '1', '--update-delay', '1s', 'web']));
  await until('update under way', () => tasksOf(b, 'web'), (t) => t.some((x) => x.Spec.ContainerSpec.Env?.includes('V=3') && x.Status.State === 'running'), 60_000);
  await a.kill(true);
  const done = await until('web updated by the new leader', async () => (await b.request('GET', '/v1.24/services/web')).json().UpdateStatus?.State, (st) => st === 'completed', 150_000);
  expect(done.value).toBe('completed');
  // every slot runs the new spec once, on B or C (A is down)
  const { value } = await until('7 new tasks on B and C', () => tasksOf(b, 'web'), (t) => running(t).length === 7 && running(t).every((x) => x.NodeID !== ids.a), 60_000);
  const slots = running(value).map((t) => t.Slot).sort((x: number, y: number) => x - y);
  expect(slots).toEqual([1, 2, 3, 4, 5, 6, 7]);
  for (const t of running(value)) expect(t.Spec.ContainerSpec.Env).toContain('V=3');
});

test('service rm on a manager removes the tasks and every node\'s containers', async () => {
  await a.start();
  ok(await b.docker(['service', 'rm', 'web', 'glob']));
  await until('no tasks', async () => (await b.request('GET', '/v1.24/tasks')).json(), (t: any[]) => t.length === 0, 60_000);
  for (const n of [a, b, c]) await until('no task containers', async () => (await n.docker(['ps', '-a', '-q'])).stdout.trim(), (s) => s === '', 60_000);
});
