// Swarm services on one berth node (docs/services.md) with the docker CLI and the API: create/ls/ps/inspect/scale/
// update/rm, global mode, constraints (pending with the reference's message), drain, restart policies, a killed
// task container replaced, the answers to bad specs against the reference's (test/golden/services/reference/), and
// a SIGKILLed berth that finds its tasks again without duplicating them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { startSwarmNode, SwarmNode, until } from '../helpers/swarm-node';
import { loadBusybox } from '../helpers/busybox-image';

jest.setTimeout(180_000);

const REF = path.join(__dirname, '..', 'golden', 'services', 'reference');
const PORT = 23870;
let a: SwarmNode;
let nodeId = '';

/** A captured reference answer: status and JSON body. */
function ref(name: string): { status: number; body: any } {
  const txt = fs.readFileSync(path.join(REF, `${name}.txt`), 'utf8');
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(txt)![1]);
  const body = txt.split(/\r?\n\r?\n/).slice(1).join('\n\n').trim();
  return { status, body: body ? JSON.parse(body) : undefined };
}

/** The body a captured request sent (from capture.sh). */
function refRequest(name: string): any {
  const line = fs.readFileSync(path.join(REF, 'capture.sh'), 'utf8').split('\n').find((l) => l.startsWith(`c ${name} `))!;
  return JSON.parse(/'(\{.*\})'$/.exec(line)![1]);
}

const enc = (f: object) => encodeURIComponent(JSON.stringify(f));

async function tasksOf(service: string): Promise<any[]> {
  const r = await a.request('GET', `/v1.24/tasks?filters=${enc({ service: [service] })}`);
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.json();
}

const running = (ts: any[]) => ts.filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');

beforeAll(async () => {
  a = await startSwarmNode(41, PORT, ['--label', 'tier=front']);
  await loadBusybox(a);
});

afterAll(async () => {
  await a?.close();
});

test('outside a swarm the service routes answer 503 as the reference', async () => {
  const r = await a.request('GET', '/v1.24/services');
  expect([r.status, r.json()]).toEqual([ref('pre_services').status, ref('pre_services').body]);
  const init = await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr]);
  expect(init.code).toBe(0);
  nodeId = /current node \((\w+)\) is now a manager/.exec(init.stdout)![1];
});

test('bad specs get the reference status and message (4xx where it says 500) and create nothing', async () => {
  const cases: [string, number?][] = [
    ['svc_create_noimage'], ['svc_create_empty'], ['svc_create_negrep'], ['svc_create_badname'], ['svc_create_bothmodes'],
    ['svc_create_badmode'], ['svc_create_dnsrrports'], ['svc_create_badconstraint', 400], ['svc_create_unknownnet', 404],
  ];
  for (const [name, status] of cases) {
    const r = await a.request('POST', '/v1.24/services/create', { body: refRequest(name) });
    expect([name, r.status, r.json()]).toEqual([name, status ?? ref(name).status, ref(name).body]);
  }
  const nobody = await a.request('POST', '/v1.24/services/create', { body: '', headers: { 'Content-Type': 'application/json' } });
  expect([nobody.status, nobody.json()]).toEqual([ref('svc_create_nobody').status, ref('svc_create_nobody').body]);
  expect((await a.request('GET', '/v1.24/services')).json()).toEqual([]);
});

let webId = '';

test('create as the reference: 201 with its warning, Spec and Endpoint as it stores them, ports from 30000', async () => {
  const r = await a.request('POST', '/v1.24/services/create', { body: refRequest('svc_create') });
  const want = ref('svc_create');
  expect(r.status).toBe(want.status);
  expect(r.json().Warnings).toEqual(want.body.Warnings);
  webId = r.json().ID;
  expect(webId).toMatch(/^[0-9a-z]{25}$/);
  const got = (await a.request('GET', '/v1.24/services/web')).json();
  const gold = ref('svc_inspect_web').body;
  expect(Object.keys(got)).toEqual(Object.keys(gold));
  expect(got.Spec).toEqual(gold.Spec);
  // no ingress network (no VIP) in berth yet
  const { VirtualIPs: _vips, ...endpoint } = gold.Endpoint;
  expect(got.Endpoint).toEqual(endpoint);
  // the same service by id prefix and in the list filters
  expect((await a.request('GET', `/v1.24/services/${webId.slice(0, 5)}`)).json().ID).toBe(webId);
  for (const f of [{ name: ['we'] }, { label: ['a=b'] }, { label: ['a'] }, { id: [webId.slice(0, 5)] }]) {
    expect((await a.request('GET', `/v1.24/services?filters=${enc(f)}`)).json().map((s: any) => s.ID)).toEqual([webId]);
  }
  const bad = await a.request('GET', `/v1.24/services?filters=${enc({ foo: ['a'] })}`);
  expect([bad.status, bad.json()]).toEqual([ref('svc_list_badfilter').status, ref('svc_list_badfilter').body]);
  const missing = await a.request('GET', '/v1.24/services/nosuch');
  expect([missing.status, missing.json()]).toEqual([ref('svc_inspect_missing').status, ref('svc_inspect_missing').body]);
  const dup = await a.request('POST', '/v1.24/services/create', { body: refRequest('svc_create_dup') });
  expect([dup.status, dup.json()]).toEqual([ref('svc_create_dup').status, ref('svc_create_dup').body]);
  // a published port held by web
  const inUse = await a.request('POST', '/v1.24/services/create', {
    body: { Name: 'piu', TaskTemplate: { ContainerSpec: { Image: 'busybox' } }, EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 81, PublishedPort: 30000 }] } },
  });
  expect([inUse.status, inUse.json()]).toEqual([400, { message: `rpc error: code = InvalidArgument desc = port '30000' is already in use by service 'web' (${webId}) as an ingress port` }]);
});

test('tasks run as containers named and labelled as the engine does, states in order', async () => {
  const { value: ts } = await until('2 running web tasks', () => tasksOf('web'), (t) => running(t).length === 2, 30_000);
  const gold = ref('tasks_web').body[0];
  for (const t of ts) {
    expect(Object.keys(t)).toEqual(Object.keys(gold).filter((k) => k !== 'NetworksAttachments'));
    expect(t.Spec).toEqual(gold.Spec);
    expect(Object.keys(t.Status)).toEqual(Object.keys(gold.Status));
    expect(t).toMatchObject({ ServiceID: webId, NodeID: nodeId, DesiredState: 'running', Status: { State: 'running', Message: 'started', PortStatus: {} } });
  }
  expect(ts.map((t) => t.Slot).sort()).toEqual([1, 2]);
  const ps = await a.docker(['ps', '--format', '{{.Names}}']);
  const names = ps.stdout.trim().split('\n').sort();
  expect(names).toEqual(ts.map((t) => `web.${t.Slot}.${t.ID}`).sort());
  const t1 = ts.find((t) => t.Slot === 1);
  const labels = JSON.parse((await a.docker(['inspect', '--format', '{{json .Config.Labels}}', `web.1.${t1.ID}`])).stdout);
  expect(labels).toEqual({
    cl: '1',
    'com.docker.swarm.node.id': nodeId,
    'com.docker.swarm.service.id': webId,
    'com.docker.swarm.service.name': 'web',
    'com.docker.swarm.task': '',
    'com.docker.swarm.task.id': t1.ID,
    'com.docker.swarm.task.name': `web.1.${t1.ID}`,
  });
  expect(t1.Status.ContainerStatus.ContainerID).toMatch(/^[0-9a-f]{64}$/);
  expect(t1.Status.ContainerStatus.PID).toBeGreaterThan(0);
});

test('docker service ls / ps / inspect / scale', async () => {
  const ls = await a.docker(['service', 'ls', '--format', '{{.Name}} {{.Mode}} {{.Replicas}}']);
  expect(ls.stdout.trim()).toBe('web replicated 2/2');
  // (sleep ignores SIGTERM: every later stop takes the grace period, 1 s from here instead of 10)
  expect((await a.docker(['service', 'update', '--stop-grace-period', '1s', 'web'])).code).toBe(0);
  await until('web on the new spec', async () => (await a.request('GET', '/v1.24/services/web')).json().UpdateStatus?.State, (st) => st === 'completed', 60_000);
  expect((await a.docker(['service', 'scale', 'web=3'])).code).toBe(0);
  await until('3 running web tasks', () => tasksOf('web'), (t) => running(t).length === 3, 30_000);
  const ps = await a.docker(['service', 'ps', '--filter', 'desired-state=running', '--format', '{{.Name}} {{.CurrentState}}', 'web']);
  expect(ps.stdout.trim().split('\n').map((l) => l.split(' ')[0]).sort()).toEqual(['web.1', 'web.2', 'web.3']);
  expect(ps.stdout).toMatch(/Running/);
  expect((await a.docker(['service', 'inspect', '--format', '{{.Spec.Mode.Replicated.Replicas}}', 'web'])).stdout.trim()).toBe('3');
  expect((await a.docker(['service', 'scale', 'web=1'])).code).toBe(0);
  await until('web scaled to 1', () => tasksOf('web'), (t) => running(t).length === 1 && t.filter((x) => x.DesiredState === 'running').length === 1, 60_000);
  // the scaled-down tasks are shut down and their containers stopped
  await until('2 shut down web tasks', () => tasksOf('web'), (t) => t.filter((x) => x.Status.State === 'shutdown').length === 2, 60_000);
});

test('update: a stale version is refused; a rolling update replaces every task and completes', async () => {
  const cur = (await a.request('GET', '/v1.24/services/web')).json();
  const spec = { ...cur.Spec, Mode: { Replicated: { Replicas: 2 } } };
  const stale = await a.request('POST', `/v1.24/services/web/update?version=${cur.Version.Index - 1}`, { body: spec });
  expect([stale.status, stale.json()]).toEqual([409, ref('svc_update_stale').body]);
  const noVersion = await a.request('POST', '/v1.24/services/web/update', { body: spec });
  expect([noVersion.status, noVersion.json()]).toEqual([ref('svc_update_noversion').status, ref('svc_update_noversion').body]);
  const rename = await a.request('POST', `/v1.24/services/web/update?version=${cur.Version.Index}`, { body: { ...spec, Name: 'web2' } });
  expect([rename.status, rename.json()]).toEqual([ref('svc_update_rename').status, ref('svc_update_rename').body]);
  const mode = await a.request('POST', `/v1.24/services/web/update?version=${cur.Version.Index}`, { body: { ...spec, Mode: { Global: {} } } });
  expect([mode.status, mode.json()]).toEqual([ref('svc_update_modechange').status, ref('svc_update_modechange').body]);
  expect((await a.docker(['service', 'scale', 'web=2'])).code).toBe(0);
  await until('2 running web tasks', () => tasksOf('web'), (t) => running(t).length === 2, 30_000);
  const before = new Set(running(await tasksOf('web')).map((t) => t.ID));
  const up = await a.docker(['service', 'update', '--env-add', 'V=2', '--update-parallelism', '1', '--update-delay', '1s', 'web']);
  expect(up.code).toBe(0);
  const after = await until(
    'web updated',
    async () => (await a.request('GET', '/v1.24/services/web')).json(),
    (s) => s.UpdateStatus?.State === 'completed',
    90_000,
  );
  expect(after.value.UpdateStatus).toMatchObject({ State: 'completed', Message: 'update completed' });
  expect(after.value.PreviousSpec.TaskTemplate.ContainerSpec.Env).toEqual(['X=1']);
  expect(after.value.Spec.TaskTemplate.ContainerSpec.StopGracePeriod).toBe(1e9);
  const now = running(await tasksOf('web'));
  expect(now).toHaveLength(2);
  for (const t of now) {
    expect(before.has(t.ID)).toBe(false);
    // (the CLI merges --env-add through a Go map: its order varies from run to run)
    expect([...t.Spec.ContainerSpec.Env].sort()).toEqual(['V=2', 'X=1']);
  }
});

test('a killed task container is replaced within RestartPolicy.Delay + 1 s', async () => {
  expect((await a.docker(['service', 'create', '--name', 'rs', '--restart-delay', '1s', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000'])).code).toBe(0);
  const { value: ts } = await until('rs running', () => tasksOf('rs'), (t) => running(t).length === 1, 30_000);
  const pid = ts[0].Status.ContainerStatus.PID;
  process.kill(pid, 'SIGKILL');
  const t0 = Date.now();
  const { value: after } = await until('rs replaced', () => tasksOf('rs'), (t) => running(t).length === 1 && running(t)[0].ID !== ts[0].ID, 30_000);
  expect(Date.now() - t0).toBeLessThan(1000 + 1000 + 2000 /* container start on this machine */);
  const old = after.find((t) => t.ID === ts[0].ID);
  expect(old).toMatchObject({ DesiredState: 'shutdown', Status: { State: 'failed', Err: 'task: non-zero exit (137)' } });
  expect(running(after)[0].Slot).toBe(1);
});

test('RestartPolicy on-failure with MaxAttempts 2: three failed tasks, then no more', async () => {
  const r = await a.request('POST', '/v1.24/services/create', { body: refRequest('svc_create_fail') });
  expect(r.status).toBe(201);
  const { value } = await until('3 failed tasks', () => tasksOf('fail'), (t) => t.filter((x) => x.Status.State === 'failed' && x.DesiredState === 'shutdown').length === 3, 60_000);
  const gold = ref('tasks_fail').body;
  for (const t of value) {
    expect(t).toMatchObject({ DesiredState: 'shutdown', Slot: 1, Status: { State: 'failed', Message: gold[0].Status.Message, Err: gold[0].Status.Err, ContainerStatus: { ExitCode: 3 } } });
  }
  // checked again after the delay: still three
  await new Promise((res) => setTimeout(res, 1500));
  expect(await tasksOf('fail')).toHaveLength(3);
});

test('constraints: a task nothing fits stays pending with the reference message; a label makes it run', async () => {
  const r = await a.request('POST', '/v1.24/services/create', { body: refRequest('svc_create_pending') });
  expect(r.status).toBe(201);
  const { value } = await until('pending task', () => tasksOf('pend'), (t) => t[0]?.Status.State === 'pending', 30_000);
  const gold = ref('tasks_pend').body[0];
  expect(value[0].Status).toEqual({ ...gold.Status, Timestamp: value[0].Status.Timestamp });
  expect(value[0].NodeID).toBeUndefined();
  expect((await a.docker(['node', 'update', '--label-add', 'x=y', nodeId])).code).toBe(0);
  await until('pend running', () => tasksOf('pend'), (t) => running(t).length === 1, 30_000);
  // node.role, node.hostname, engine.labels with == and !=
  const hostname = (await a.request('GET', `/v1.24/nodes/${nodeId}`)).json().Description.Hostname;
  const ok = ['node.role==manager', `node.hostname==${hostname}`, 'engine.labels.tier==front', `node.id==${nodeId}`, 'node.labels.x!=z'];
  expect((await a.docker(['service', 'create', '--name', 'cons', ...ok.flatMap((c) => ['--constraint', c]), 'busybox', 'sleep', '1000'])).code).toBe(0);
  await until('cons running', () => tasksOf('cons'), (t) => running(t).length === 1, 30_000);
  expect((await a.docker(['service', 'create', '--name', 'cons2', '--constraint', 'engine.labels.tier!=front', 'busybox', 'sleep', '1000'])).code).toBe(0);
  const p = await until('cons2 pending', () => tasksOf('cons2'), (t) => t[0]?.Status.State === 'pending', 30_000);
  expect(p.value[0].Status.Err).toBe('no suitable node (scheduling constraints not satisfied on 1 node)');
  expect((await a.docker(['service', 'rm', 'cons', 'cons2', 'pend'])).code).toBe(0);
});

test('global mode: one task per node, named <service>.<node>.<task>', async () => {
  expect((await a.docker(['service', 'create', '--name', 'glob', '--mode', 'global', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000'])).code).toBe(0);
  const { value } = await until('glob running', () => tasksOf('glob'), (t) => running(t).length === 1, 30_000);
  expect(value[0].Slot).toBeUndefined();
  expect(value[0].NodeID).toBe(nodeId);
  const names = (await a.docker(['ps', '--format', '{{.Names}}'])).stdout;
  expect(names).toContain(`glob.${nodeId}.${value[0].ID}`);
  expect((await a.docker(['service', 'ls', '--format', '{{.Name}} {{.Mode}}', '--filter', 'mode=global'])).stdout.trim()).toBe('glob global');
});

test('drain: the tasks are shut down and wait pending with the reference message; active again runs them', async () => {
  expect((await a.docker(['node', 'update', '--availability', 'drain', nodeId])).code).toBe(0);
  const { value } = await until('rs pending', () => tasksOf('rs'), (t) => t.some((x) => x.DesiredState === 'running' && x.Status.State === 'pending'), 60_000);
  expect(value.find((x) => x.DesiredState === 'running').Status.Err).toBe('no suitable node (1 node not available for new tasks)');
  await until('glob has no running task', () => tasksOf('glob'), (t) => running(t).length === 0, 60_000);
  expect((await a.docker(['node', 'update', '--availability', 'active', nodeId])).code).toBe(0);
  await until('rs runs again', () => tasksOf('rs'), (t) => running(t).length === 1, 60_000);
  await until('glob runs again', () => tasksOf('glob'), (t) => running(t).length === 1, 60_000);
});

test('a SIGKILLed berth finds its tasks again: none duplicated', async () => {
  // both replicas running first: the drain before shut them down, and 'active' brings them back one at a time
  const settled = await until('web running before the kill', () => tasksOf('web'), (t) => running(t).length === 2, 60_000);
  const before = running(settled.value).map((t) => t.ID).sort();
  await a.kill();
  await a.start();
  await new Promise((r) => setTimeout(r, 1500));
  const { value } = await until('web running after restart', () => tasksOf('web'), (t) => running(t).length === 2, 30_000);
  expect(running(value).map((t) => t.ID).sort()).toEqual(before);
  // the tasks shut down before the kill (drain) finish stopping; no other web container runs
  const webRunning = async () => (await a.docker(['ps', '--format', '{{.Names}}'])).stdout.split('\n').filter((n) => n.startsWith('web.')).sort();
  await until('2 web containers running', webRunning, (n) => n.length === 2, 30_000);
  expect(await webRunning()).toEqual(running(value).map((t) => `web.${t.Slot}.${t.ID}`).sort());
});

test("docker-py's service and task calls: create_service, services, tasks, update_service, remove_service, nodes", async () => {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('/usr/bin/python3', [path.join(__dirname, '..', 'clients', 'docker_py_matrix.py'), `unix://${a.socket}`, 'swarm_services'], { timeout: 150_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`docker_py_matrix.py failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  const r = JSON.parse(out.trim());
  expect(r.error).toBeUndefined();
  expect(r.result).toEqual({
    created: ['ID', 'Warnings'],
    services: ['dpy-svc'],
    ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'ingress' }],
    first: 2,
    afterCmd: ['sleep', '1001'],
    replaced: true,
    stale: [409, 'rpc error: code = Unknown desc = update out of sequence'],
    nodes: ['manager'],
    task: ['CreatedAt', 'DesiredState', 'ID', 'Labels', 'NodeID', 'ServiceID', 'Slot', 'Spec', 'Status', 'UpdatedAt', 'Version'],
    removed: [],
  });
});

test('service rm: the service, its tasks and containers go', async () => {
  for (const s of ['web', 'rs', 'fail', 'glob']) expect((await a.docker(['service', 'rm', s])).code).toBe(0);
  const gone = await a.request('DELETE', '/v1.24/services/web');
  expect([gone.status, gone.json()]).toEqual([ref('svc_delete_again').status, ref('svc_delete_again').body]);
  await until('no tasks', async () => (await a.request('GET', '/v1.24/tasks')).json(), (t) => t.length === 0, 60_000);
  await until('no task containers', async () => (await a.docker(['ps', '-a', '-q'])).stdout.trim(), (s) => s === '', 60_000);
  expect((await a.docker(['service', 'ls', '-q'])).stdout.trim()).toBe('');
});

test('swarm leave --force removes the task containers, as the engine does', async () => {
  expect((await a.docker(['service', 'create', '--name', 'last', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000'])).code).toBe(0);
  await until('last running', () => tasksOf('last'), (t) => running(t).length === 1, 30_000);
  expect((await a.docker(['swarm', 'leave', '--force'])).code).toBe(0);
  await until('no containers', async () => (await a.docker(['ps', '-a', '-q'])).stdout.trim(), (s) => s === '', 30_000);
});
