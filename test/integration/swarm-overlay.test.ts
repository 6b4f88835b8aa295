// Overlay networks across three berth nodes on 127.P.0.81-83 (docs/overlay.md) with the docker CLI and the API:
// create/list/inspect/remove in etcd with the reference's shapes and answers (test/golden/overlay/reference/), listed
// on every node with Scope swarm; services on an overlay network.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSwarmNode, swarmNodeId as nodeId, SwarmNode, until } from '../helpers/swarm-node';
import { loadBusybox } from '../helpers/busybox-image';

jest.setTimeout(180_000);

const PORT = 23900;
const REF = path.join(__dirname, '..', 'golden', 'overlay', 'reference');
let a: SwarmNode;
let b: SwarmNode;
let c: SwarmNode;
const ids: Record<string, string> = {};

/** A captured reference exchange: the request body, status and JSON body. */
function ref(name: string): { request: any; status: number; body: any } {
  return JSON.parse(fs.readFileSync(path.join(REF, `${name}.json`), 'utf8'));
}

beforeAll(async () => {
  [a, b, c] = await Promise.all([startSwarmNode(81, PORT), startSwarmNode(82, PORT), startSwarmNode(83, PORT)]);
  for (const n of [a, b, c]) await loadBusybox(n);
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b, c].filter(Boolean).map((n) => n.close()));
}, 60_000);

function ok(r: { code: number; stderr: string }): void {
  const rest = r.stderr.replace(/image \S+ could not be accessed on a registry to record\nits digest\. Each node will access \S+ independently,\npossibly leading to different nodes running different\nversions of the image\.\n\n?/g, '');
  expect([r.code, rest]).toEqual([0, '']);
}

/** The shape of a network as the reference shows it, ids, times and the address pool normalised. */
function shape(n: any): any {
  return { ...n, Id: '<id>', Created: '<time>' };
}

test('outside a swarm an overlay network is refused as the other swarm routes are', async () => {
  const r = await a.request('POST', '/v1.24/networks/create', { body: { Name: 'x', Driver: 'overlay' } });
  expect(r.status).toBe(503);
  expect(r.json().message).toMatch(/This node is not a swarm manager/);
});

test('a swarm of A (manager), B (manager) and C (worker)', async () => {
  ok(await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr]));
  const wt = (await a.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  const mt = (await a.docker(['swarm', 'join-token', '-q', 'manager'])).stdout.trim();
  ok(await b.docker(['swarm', 'join', '--token', mt, '--advertise-addr', b.ip, '--listen-addr', b.addr, a.addr]));
  ok(await c.docker(['swarm', 'join', '--token', wt, '--advertise-addr', c.ip, '--listen-addr', c.addr, a.addr]));
  [ids.a, ids.b, ids.c] = await Promise.all([nodeId(a), nodeId(b), nodeId(c)]);
  await until('3 ready nodes', async () => (await a.request('GET', '/v1.24/nodes')).json(), (ns: any[]) => ns.length === 3 && ns.every((n) => n.Status.State === 'ready'), 20_000);
});

let netId = '';

test('create, inspect and list as the reference; every node lists it with Scope swarm', async () => {
  const want = ref('net_create');
  const r = await a.request('POST', '/v1.24/networks/create', { body: want.request });
  expect(r.status).toBe(want.status);
  expect(r.json().Warning).toBe('');
  netId = r.json().Id;
  expect(netId).toMatch(/^[0-9a-z]{25}$/);
  // the reference's first user network in a fresh swarm gets 10.0.1.0/24 (its ingress has 10.0.0.0/24) and VNI 4097
  // (seen there; the capture came from a swarm that had made others before)
  const wantInspect = { ...ref('net_inspect').body, IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: '10.0.1.0/24', Gateway: '10.0.1.1' }] }, Options: { 'com.docker.network.driver.overlay.vxlanid_list': '4097' } };
  for (const n of [a, b, c]) {
    const i = await n.request('GET', `/v1.24/networks/${want.request.Name}`);
    expect(i.status).toBe(200);
    expect(shape(i.json())).toEqual(shape(wantInspect));
    const ls = await n.docker(['network', 'ls', '--filter', 'driver=overlay', '--format', '{{.Name}} {{.Driver}} {{.Scope}}']);
    expect(ls.stdout.trim()).toBe('gold1 overlay swarm');
  }
  // labels, options, a given subnet and gateway, internal and attachable
  const lr = await b.request('POST', '/v1.24/networks/create', { body: ref('net_create_labels').request });
  expect(lr.status).toBe(201);
  expect(shape((await c.request('GET', '/v1.24/networks/gold3')).json())).toEqual({ ...shape(ref('net_inspect_labels').body), Options: { ...ref('net_inspect_labels').body.Options, 'com.docker.network.driver.overlay.vxlanid_list': '4098' } });
});

test('bad input: the reference status and message (4xx where it says 500); a worker refuses', async () => {
  const dup = await b.request('POST', '/v1.24/networks/create', { body: ref('net_create_dup').request });
  expect([dup.status, dup.json()]).toEqual([ref('net_create_dup').status, ref('net_create_dup').body]);
  const bad = await a.request('POST', '/v1.24/networks/create', { body: ref('net_create_badsubnet').request });
  expect([bad.status, bad.json()]).toEqual([400, ref('net_create_badsubnet').body]);
  // the reference accepts an overlapping subnet and leaves the network unallocated; berth refuses it
  const over = await a.request('POST', '/v1.24/networks/create', { body: { Name: 'over', Driver: 'overlay', IPAM: { Config: [{ Subnet: '10.0.1.0/24' }] } } });
  expect([over.status, over.json()]).toEqual([403, { message: 'Pool overlaps with other one on this address space' }]);
  const w = await c.request('POST', '/v1.24/networks/create', { body: { Name: 'w', Driver: 'overlay' } });
  expect(w.status).toBe(503);
  expect(w.json().message).toMatch(/Worker nodes can't be used/);
  const local = await a.request('POST', '/v1.24/networks/create', { body: { Name: 'goldlocal' } });
  expect(local.status).toBe(201);
  for (const name of ['svc_create_localnet', 'svc_create_nonet']) {
    const s = await a.request('POST', '/v1.24/services/create', { body: ref(name).request });
    expect([name, s.status, s.json()]).toEqual([name, ref(name).status === 500 ? 404 : ref(name).status, ref(name).body]);
  }
  expect((await a.request('DELETE', '/v1.24/networks/goldlocal')).status).toBe(204);
});

test('a service names the network by id; removal is refused while it does', async () => {
  const r = await a.request('POST', '/v1.24/services/create', { body: ref('svc_create_net').request });
  expect(r.status).toBe(201);
  const svc = (await a.request('GET', '/v1.24/services/goldsvc')).json();
  expect(svc.Spec.Networks).toEqual([{ Target: netId, Aliases: ['al1'] }]);
  const rm = await b.request('DELETE', '/v1.24/networks/gold1');
  expect([rm.status, rm.json()]).toEqual([400, { message: `rpc error: code = FailedPrecondition desc = network ${netId} is in use by service ${svc.ID}` }]);
  ok(await a.docker(['service', 'rm', 'goldsvc']));
});

test('removal on any manager; the others stop listing it', async () => {
  await until('gold1 removed', async () => (await b.request('DELETE', '/v1.24/networks/gold1')).status, (s) => s === 204, 30_000);
  ok(await a.docker(['network', 'rm', 'gold3']));
  for (const n of [a, b, c]) {
    const ls = await n.docker(['network', 'ls', '--filter', 'driver=overlay', '-q']);
    expect(ls.stdout.trim()).toBe('');
  }
});
