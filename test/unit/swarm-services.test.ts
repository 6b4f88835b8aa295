// Swarm services without a cluster: the spec checks and stored form against the reference's (golden), published
// port assignment, constraints, and the orchestrator's and scheduler's decisions (plan.ts) round by round.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assignPorts, matchConstraints, parseConstraint, parseServiceSpec, taskContainerBody } from '../../src/translate/request/service';
import { chooseNode, plan, PlanInput, PlanNode } from '../../src/cluster/plan';
import type { NodeRecord, ServiceRecord, TaskRecord, Versioned } from '../../src/types/swarm';

const REF = path.join(__dirname, '..', 'golden', 'services', 'reference');
const refBody = (name: string) => JSON.parse(fs.readFileSync(path.join(REF, `${name}.txt`), 'utf8').split(/\r?\n\r?\n/).slice(1).join('\n\n'));
const refRequest = (name: string) => {
  const line = fs.readFileSync(path.join(REF, 'capture.sh'), 'utf8').split('\n').find((l) => l.startsWith(`c ${name} `))!;
  return JSON.parse(/'(\{.*\})'$/.exec(line)![1]);
};
const msg = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

test('a create body is stored as the reference stores it', () => {
  for (const [req, out] of [['svc_create', 'svc_inspect_web'], ['svc_create_ports', 'svc_inspect_ports'], ['svc_create_pending', 'svc_inspect_pend'], ['svc_create_global', 'svc_inspect_glob']]) {
    expect(parseServiceSpec(refRequest(req), () => 'gen')).toEqual(refBody(out).Spec);
  }
  expect(parseServiceSpec({ TaskTemplate: { ContainerSpec: { Image: 'b' } } }, () => 'happy_bohr').Name).toBe('happy_bohr');
  // Go's decoder matches names case-insensitively: docker-py's ServiceMode sends {"replicated": {...}}
  expect(parseServiceSpec({ TaskTemplate: { ContainerSpec: { Image: 'b' } }, Mode: { replicated: { Replicas: 3 } } }, () => 'x').Mode).toEqual({ Replicated: { Replicas: 3 } });
  expect(parseServiceSpec({ TaskTemplate: { ContainerSpec: { Image: 'b' } }, Mode: { global: {} } }, () => 'x').Mode).toEqual({ Global: {} });
});

test('bad specs: the reference messages', () => {
  for (const name of ['svc_create_noimage', 'svc_create_empty', 'svc_create_negrep', 'svc_create_badname', 'svc_create_bothmodes', 'svc_create_badmode', 'svc_create_dnsrrports', 'svc_create_badconstraint', 'svc_create_full']) {
    expect([name, msg(() => parseServiceSpec(refRequest(name), () => 'x'))]).toEqual([name, refBody(name).message]);
  }
});

test('published ports: lowest free from 30000 per protocol, a held one refused, an update keeps its own', () => {
  const held = new Map([['tcp/30000', { id: 'a', name: 'web' }]]);
  const ports = assignPorts([{ Protocol: 'tcp', TargetPort: 80, PublishMode: 'ingress' }, { Protocol: 'udp', TargetPort: 53, PublishMode: 'ingress' }], held);
  expect(ports.map((p) => p.PublishedPort)).toEqual([30001, 30000]);
  expect(msg(() => assignPorts([{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 30000, PublishMode: 'ingress' }], held))).toBe(
    "rpc error: code = InvalidArgument desc = port '30000' is already in use by service 'web' (a) as an ingress port",
  );
  expect(assignPorts([{ Protocol: 'tcp', TargetPort: 80, PublishMode: 'ingress' }], held, 'a', [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 30000, PublishMode: 'ingress' }])[0].PublishedPort).toBe(30000);
});

const nodeRec = (id: string, o: Partial<NodeRecord['spec']> = {}, engineLabels: Record<string, string> = {}): NodeRecord => ({
  id,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  spec: { Role: 'worker', Availability: 'active', Labels: {}, ...o },
  description: { hostname: `host-${id}`, architecture: 'x86_64', os: 'linux', nanoCPUs: 2e9, memoryBytes: 1 << 30, engineVersion: '0.1.0', engineLabels },
  addr: '127.0.0.1',
  managerAddr: '127.0.0.1:2377',
  peerURL: '',
  clientURL: '',
});

test('constraints: ==, != on node and engine attributes; bad syntax refused', () => {
  const n = nodeRec('n1', { Role: 'manager', Labels: { zone: 'a' } }, { tier: 'front' });
  const ok = (s: string[]) => matchConstraints(s.map(parseConstraint), n);
  expect(ok(['node.role==manager', 'node.hostname==host-n1', 'node.id==n1', 'node.labels.zone==a', 'engine.labels.tier==front'])).toBe(true);
  expect(ok(['node.labels.zone!=b', 'node.labels.none!=x', 'node.role!=worker'])).toBe(true);
  expect(ok(['node.labels.zone==b'])).toBe(false);
  expect(ok(['node.foo==x'])).toBe(false);
  expect(msg(() => parseConstraint('node.role'))).toBe('rpc error: code = Unknown desc = constraint expected one operator from ==, !=');
});

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
let ids = 0;
function service(spec: Partial<ServiceRecord['spec']> = {}, o: Partial<ServiceRecord> = {}): Versioned<ServiceRecord> {
  return {
    version: 5,
    value: {
      id: 's1',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      spec: { Name: 'web', Labels: {}, TaskTemplate: { ContainerSpec: { Image: 'busybox' }, ForceUpdate: 0, Runtime: 'container' }, Mode: { Replicated: { Replicas: 2 } }, ...spec },
      ports: [],
      specVersion: 1,
      ...o,
    },
  };
}

/** Applies a round's actions to the task list (as etcd would) and returns them. */
function run(input: Omit<PlanInput, 'newId' | 'retention'> & { retention?: number }): { tasks: Versioned<TaskRecord>[]; services: Versioned<ServiceRecord>[]; actions: ReturnType<typeof plan> } {
  const actions = plan({ retention: 5, newId: () => `t${++ids}`, ...input });
  const tasks = new Map(input.tasks.map((t) => [t.value.ID, t]));
  let services = input.services;
  for (const a of actions) {
    if (a.kind === 'create') tasks.set(a.task.ID, { value: a.task, version: 1 });
    else if (a.kind === 'update') tasks.set(a.task.ID, { value: a.task, version: a.version + 1 });
    else if (a.kind === 'delete') tasks.delete(a.id);
    else services = services.map((s) => (s.value.id === a.service.id ? { value: a.service, version: s.version + 1 } : s));
  }
  return { tasks: [...tasks.values()], services, actions };
}

/** What an agent reports: every assigned task running (at `now`). */
const runAll = (ts: Versioned<TaskRecord>[], now: number): Versioned<TaskRecord>[] =>
  ts.map((t) => (t.value.Status.State === 'assigned' && t.value.DesiredState === 'running' ? { ...t, value: { ...t.value, Status: { Timestamp: new Date(now).toISOString(), State: 'running', Message: 'started' } } } : t));
const live = (ts: Versioned<TaskRecord>[]) => ts.filter((t) => t.value.DesiredState === 'running').map((t) => t.value);

test('replicated: Replicas tasks, spread over the ready active nodes', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }, { rec: nodeRec('b'), ready: true }, { rec: nodeRec('c', { Availability: 'drain' }), ready: true }, { rec: nodeRec('d'), ready: false }];
  const { tasks } = run({ now: T0, services: [service({ Mode: { Replicated: { Replicas: 4 } } })], tasks: [], nodes });
  expect(tasks.map((t) => [t.value.Slot, t.value.Status.State, t.value.NodeID])).toEqual([
    [1, 'assigned', 'a'],
    [2, 'assigned', 'b'],
    [3, 'assigned', 'a'],
    [4, 'assigned', 'b'],
  ]);
});

test('pending with the reference explanation when no node fits', () => {
  const t = { Spec: { Placement: { Constraints: ['node.labels.x==y'] }, ForceUpdate: 0 }, ServiceID: 's' } as unknown as TaskRecord;
  expect(chooseNode(t, [{ rec: nodeRec('a'), ready: true }], [])).toEqual({ err: 'no suitable node (scheduling constraints not satisfied on 1 node)' });
  expect(chooseNode(t, [{ rec: nodeRec('a'), ready: false }, { rec: nodeRec('b', { Availability: 'drain' }), ready: true }, { rec: nodeRec('c'), ready: true }], [])).toEqual({
    err: 'no suitable node (2 nodes not available for new tasks; scheduling constraints not satisfied on 1 node)',
  });
  const big = { Spec: { Resources: { Reservations: { MemoryBytes: 2 * 2 ** 30 } }, ForceUpdate: 0 }, ServiceID: 's' } as unknown as TaskRecord;
  expect(chooseNode(big, [{ rec: nodeRec('a'), ready: true }], [])).toEqual({ err: 'no suitable node (insufficient resources on 1 node)' });
});

test('a node within its grace (alive key missing less than a period: a heartbeat gap) still takes new tasks', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }, { rec: nodeRec('b'), ready: false, grace: true }, { rec: nodeRec('c'), ready: false, grace: true }];
  const { tasks } = run({ now: T0, services: [service({ Mode: { Replicated: { Replicas: 3 } } })], tasks: [], nodes });
  expect(tasks.map((t) => t.value.NodeID).sort()).toEqual(['a', 'b', 'c']);
  const g = run({ now: T0, services: [service({ Mode: { Global: {} } }, { id: 'g' })], tasks: [], nodes });
  expect(g.tasks.map((t) => t.value.NodeID).sort()).toEqual(['a', 'b', 'c']);
  // past the grace: not available
  const t = { Spec: { ForceUpdate: 0 }, ServiceID: 's' } as unknown as TaskRecord;
  expect(chooseNode(t, [{ rec: nodeRec('b'), ready: false, grace: false }], [])).toEqual({ err: 'no suitable node (1 node not available for new tasks)' });
});

test('restart policy: Delay honoured, on-failure stops at MaxAttempts', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }];
  const svc = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: { ContainerSpec: { Image: 'b' }, RestartPolicy: { Condition: 'on-failure', Delay: 1e9, MaxAttempts: 1 }, ForceUpdate: 0 } });
  let { tasks } = run({ now: T0, services: [svc], tasks: [], nodes });
  tasks = runAll(tasks, T0);
  const fail = (ts: Versioned<TaskRecord>[], at: number) => ts.map((t) => (t.value.Status.State === 'running' ? { ...t, value: { ...t.value, Status: { Timestamp: new Date(at).toISOString(), State: 'failed' as const, Message: 'started', Err: 'task: non-zero exit (1)' } } } : t));
  tasks = fail(tasks, T0 + 100);
  ({ tasks } = run({ now: T0 + 500, services: [svc], tasks, nodes }));
  expect(live(tasks)).toHaveLength(0); // within the delay
  ({ tasks } = run({ now: T0 + 1200, services: [svc], tasks, nodes }));
  expect(live(tasks).map((t) => [t.Slot, t.cause])).toEqual([[1, 'restart']]);
  tasks = fail(runAll(tasks, T0 + 1300), T0 + 1400);
  ({ tasks } = run({ now: T0 + 9000, services: [svc], tasks, nodes }));
  expect(live(tasks)).toHaveLength(0); // MaxAttempts 1 reached
  expect(tasks).toHaveLength(2);
});

test('a node down or drained: its tasks shut down and placed elsewhere at once; a grace keeps them', () => {
  const svc = service({ Mode: { Replicated: { Replicas: 2 } } });
  let { tasks } = run({ now: T0, services: [svc], tasks: [], nodes: [{ rec: nodeRec('a'), ready: true }, { rec: nodeRec('b'), ready: true }] });
  tasks = runAll(tasks, T0);
  const down: PlanNode[] = [{ rec: nodeRec('a'), ready: true }, { rec: nodeRec('b'), ready: false, grace: true }];
  expect(run({ now: T0 + 100, services: [svc], tasks, nodes: down }).actions).toEqual([]);
  down[1].grace = false;
  ({ tasks } = run({ now: T0 + 100, services: [svc], tasks, nodes: down }));
  expect(live(tasks).map((t) => t.NodeID).sort()).toEqual(['a', 'a']);
  expect(tasks.filter((t) => t.value.DesiredState === 'shutdown').map((t) => [t.value.NodeID, t.value.endedBy])).toEqual([['b', 'node']]);
});

test('scale down takes the highest slots; a global service runs one task per eligible node', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }, { rec: nodeRec('b', { Labels: { x: 'y' } }), ready: true }];
  let { tasks } = run({ now: T0, services: [service({ Mode: { Replicated: { Replicas: 3 } } })], tasks: [], nodes });
  ({ tasks } = run({ now: T0 + 1, services: [service({ Mode: { Replicated: { Replicas: 1 } } })], tasks: runAll(tasks, T0), nodes }));
  expect(live(tasks).map((t) => t.Slot)).toEqual([1]);
  const g = service({ Mode: { Global: {} }, TaskTemplate: { ContainerSpec: { Image: 'b' }, Placement: { Constraints: ['node.labels.x==y'] }, ForceUpdate: 0 } }, { id: 'g' });
  const r = run({ now: T0, services: [g], tasks: [], nodes });
  expect(r.tasks.map((t) => [t.value.Slot, t.value.NodeID, t.value.Status.State])).toEqual([[undefined, 'b', 'assigned']]);
});

test('rolling update: Parallelism at a time, Delay between batches, then completed', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }];
  const v1 = service({ Mode: { Replicated: { Replicas: 3 } } });
  let { tasks } = run({ now: T0, services: [v1], tasks: [], nodes });
  tasks = runAll(tasks, T0);
  const v2 = service({ Mode: { Replicated: { Replicas: 3 } }, UpdateConfig: { Parallelism: 1, Delay: 1e9, MaxFailureRatio: 0 } }, { specVersion: 2, updateStatus: { State: 'updating', StartedAt: new Date(T0 + 10).toISOString(), Message: 'update in progress' } });
  let services = [v2];
  const newOnes = () => live(tasks).filter((t) => t.specVersion === 2).length;
  ({ tasks, services } = run({ now: T0 + 20, services, tasks, nodes }));
  expect(newOnes()).toBe(1);
  ({ tasks, services } = run({ now: T0 + 30, services, tasks, nodes }));
  expect(newOnes()).toBe(1); // not running yet
  tasks = runAll(tasks, T0 + 40);
  ({ tasks, services } = run({ now: T0 + 500, services, tasks, nodes }));
  expect(newOnes()).toBe(1); // the delay
  ({ tasks, services } = run({ now: T0 + 1100, services, tasks, nodes }));
  expect(newOnes()).toBe(2);
  tasks = runAll(tasks, T0 + 1200);
  ({ tasks, services } = run({ now: T0 + 2300, services, tasks, nodes }));
  tasks = runAll(tasks, T0 + 2400);
  ({ tasks, services } = run({ now: T0 + 3500, services, tasks, nodes }));
  expect(newOnes()).toBe(3);
  expect(services[0].value.updateStatus).toMatchObject({ State: 'completed', Message: 'update completed' });
});

test('history: at most TaskHistoryRetentionLimit tasks per slot; a removed service\'s stopped tasks go', () => {
  const nodes: PlanNode[] = [{ rec: nodeRec('a'), ready: true }];
  const svc = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: { ContainerSpec: { Image: 'b' }, RestartPolicy: { Delay: 0 }, ForceUpdate: 0 } });
  let tasks: Versioned<TaskRecord>[] = [];
  for (let i = 0; i < 6; i++) {
    ({ tasks } = run({ now: T0 + i * 10, services: [svc], tasks, nodes, retention: 3 }));
    tasks = tasks.map((t) => (t.value.DesiredState === 'running' ? { ...t, value: { ...t.value, Status: { Timestamp: new Date(T0 + i * 10 + 1).toISOString(), State: 'complete', Message: 'finished' } } } : t));
  }
  expect(tasks.length).toBeLessThanOrEqual(3);
  ({ tasks } = run({ now: T0 + 100, services: [], tasks, nodes }));
  expect(tasks).toHaveLength(0);
});

test('the container of a task: engine labels, Command as entrypoint, Args as cmd, limits', () => {
  const t: TaskRecord = {
    ID: 'tid',
    CreatedAt: '',
    UpdatedAt: '',
    Labels: {},
    Spec: { ContainerSpec: { Image: 'busybox', Command: ['sleep'], Args: ['1'], Labels: { a: 'b' }, Mounts: [{ Type: 'volume', Source: 'v', Target: '/d' }] }, Resources: { Limits: { MemoryBytes: 8 << 20 } }, ForceUpdate: 0 },
    ServiceID: 'sid',
    Slot: 2,
    Status: { Timestamp: '', State: 'assigned', Message: '' },
    DesiredState: 'running',
    serviceName: 'web',
    specVersion: 1,
  };
  const b = taskContainerBody(t, 'nid');
  expect(b).toMatchObject({ Image: 'busybox', Entrypoint: ['sleep'], Cmd: ['1'], HostConfig: { Memory: 8 << 20, Binds: ['v:/d'] } });
  expect(b.Labels).toEqual({ a: 'b', 'com.docker.swarm.node.id': 'nid', 'com.docker.swarm.service.id': 'sid', 'com.docker.swarm.service.name': 'web', 'com.docker.swarm.task': '', 'com.docker.swarm.task.id': 'tid', 'com.docker.swarm.task.name': 'web.2.tid' });
});
