// Overlay networks across three berth nodes on 127.P.0.81-83 (docs/overlay.md) with the docker CLI and the API:
// create/list/inspect/remove in etcd with the reference's shapes and answers (test/golden/overlay/reference/), listed
// on every node with Scope swarm; services on an overlay network: tasks with NetworksAttachments, reaching each other
// across nodes by address, by service name (its VIP, load-balanced over the tasks) and by tasks.<name>, dnsrr; a
// node failure (the moved task reached by address and name, the old one shut down when the node is back); and
// nothing left behind (no VXLAN devices, bridges or FORWARD rules of the nodes' VXLAN ports).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliOk as ok, closeSwarmNodes, formSwarm, startSwarmNodes } from '../helpers/swarm-cluster';
import { SwarmNode, until } from '../helpers/swarm-node';

jest.setTimeout(180_000);

const PORT = 23900;
const REF = path.join(__dirname, '..', 'golden', 'overlay', 'reference');
let a: SwarmNode;
let b: SwarmNode;
let c: SwarmNode;
const ids: Record<string, string> = {};
/** Each node's own VXLAN port (the nodes share this machine's network namespace): apart from other test runs'. */
const VXLAN = 40000 + (process.pid % 5000) * 3;
const vxlanHex = [0, 1, 2].map((i) => (VXLAN + i).toString(16));

/** This test's overlay devices (their names end in the node's VXLAN port, in hex) and FORWARD rules. */
function leftovers(): string[] {
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1] ?? '')
    .filter((n) => /^o[bx]/.test(n) && vxlanHex.some((h) => n.endsWith(`-${h}`)));
  const rules = execFileSync('iptables', ['-w', '-S', 'FORWARD'], { encoding: 'utf8' })
    .split('\n')
    .filter((r) => vxlanHex.some((h) => r.includes(`-${h} `)));
  return [...links, ...rules];
}

/** A captured reference exchange: the request body, status and JSON body. */
function ref(name: string): { request: any; status: number; body: any } {
  return JSON.parse(fs.readFileSync(path.join(REF, `${name}.json`), 'utf8'));
}

beforeAll(async () => {
  [a, b, c] = await startSwarmNodes([81, 82, 83].map((n, i) => ({ n, flags: ['--vxlan-port', String(VXLAN + i)] })), PORT, { busybox: true });
}, 120_000);

afterAll(async () => {
  await closeSwarmNodes([a, b, c]);
  // (only after a failure: the last test checks that berth removed them itself)
  for (const dev of leftovers()) if (!dev.startsWith('-')) execFileSync('ip', ['link', 'del', dev]);
  for (const rule of leftovers()) execFileSync('iptables', ['-w', ...rule.replace(/^-A /, '-D ').split(' ')]);
}, 60_000);

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
  [ids.a, ids.b, ids.c] = await formSwarm([a, b, c], { roles: ['manager', 'worker'] });
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

const enc = (f: object) => encodeURIComponent(JSON.stringify(f));
async function tasksOf(service: string): Promise<any[]> {
  const r = await a.request('GET', `/v1.24/tasks?filters=${enc({ service: [service], 'desired-state': ['running'] })}`);
  return r.json();
}
const running = (ts: any[]) => ts.filter((t) => t.Status.State === 'running');
/** Runs a command in a service's task container on a node. */
async function execIn(n: SwarmNode, service: string, cmd: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const ps = await n.docker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${service}`]);
  const id = ps.stdout.trim().split('\n')[0];
  return n.docker(['exec', id, ...cmd]);
}
/**
 * An HTTP GET with busybox's wget, by name or address. Not `-T`: Debian's busybox-static 1.35 wget crashes
 * (SIGSEGV, exit 139) whenever -T is given, before it sends anything; the CLI call's own timeout bounds it.
 */
const wget = (host: string): string[] => ['wget', '-qO-', `http://${host}/`];
/**
 * Runs a command in a service's task on a node until its output is as wanted. Bounded (SETTLE_MS) waits where the
 * design is eventually consistent: each node reads tasks from etcd every 500 ms for its peers' FDB/neighbour
 * entries and its resolver's names, and a task counts as running a moment before its httpd listens.
 */
const SETTLE_MS = 15_000;
async function settled(n: SwarmNode, service: string, cmd: string[], good: (r: { stdout: string; code: number; stderr: string }) => boolean, what: string) {
  try {
    return (await until(`${what} (node ${n.n})`, () => execIn(n, service, cmd), good, SETTLE_MS)).value;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${await datapath()}`);
  }
}

/** What the kernel and the swarm hold when a check fails: the VXLAN devices' FDB and neighbour entries, the tasks. */
async function datapath(): Promise<string> {
  const sh = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch (err) {
      return String(err);
    }
  };
  const out: string[] = [];
  for (const dev of leftovers().filter((d) => d.startsWith('ox'))) {
    out.push(`${dev}: ${sh('ip', ['-d', '-o', 'link', 'show', dev])}`, `fdb: ${sh('bridge', ['fdb', 'show', 'dev', dev])}`, `neigh: ${sh('ip', ['neigh', 'show', 'dev', dev])}`);
  }
  const ts = await a.request('GET', '/v1.24/tasks').then((r) => r.json() as any[], () => []);
  const name = (id: string) => Object.keys(ids).find((k) => ids[k] === id) ?? id;
  for (const t of ts) out.push(`task ${t.ID} slot ${t.Slot ?? '-'} on ${name(t.NodeID)} ${t.Status.State}/${t.DesiredState} ${(t.NetworksAttachments ?? []).map((x: any) => x.Addresses.join(',')).join(' ')} ${t.Status.Timestamp}`);
  return out.join('\n');
}
const HTTPD = ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 80 -h /www'];

test('tasks on the overlay get addresses (NetworksAttachments), the service a VIP; they reach each other across nodes', async () => {
  ok(await a.docker(['network', 'create', '-d', 'overlay', 'ov']));
  const ov = (await a.request('GET', '/v1.24/networks/ov')).json();
  ok(await a.docker(['service', 'create', '--name', 'web', '--network', 'ov', '--replicas', '3', '--stop-grace-period', '1s', 'busybox', ...HTTPD]));
  ok(await b.docker(['service', 'create', '--name', 'cli', '--network', 'ov', '--mode', 'global', '--stop-grace-period', '1s', 'busybox', 'sleep', '1000']));
  const web = (await until('3 web tasks running', () => tasksOf('web'), (t) => running(t).length === 3, 90_000)).value;
  await until('3 cli tasks running', () => tasksOf('cli'), (t) => running(t).length === 3, 60_000);
  expect(new Set(web.map((t) => t.NodeID)).size).toBe(3);
  const att = web[0].NetworksAttachments;
  expect(att).toHaveLength(1);
  expect(att[0].Network).toMatchObject({ ID: ov.Id, Spec: { Name: 'ov', Labels: {}, DriverConfiguration: { Name: 'overlay' }, Scope: 'swarm' }, DriverState: { Name: 'overlay', Options: ov.Options }, IPAMOptions: { Driver: { Name: 'default' }, Configs: ov.IPAM.Config } });
  expect(Object.keys(web[0])).toEqual(Object.keys(ref('tasks_net').body[0]));
  const svc = (await a.request('GET', '/v1.24/services/web')).json();
  expect(svc.Endpoint).toEqual({ Spec: { Mode: 'vip' }, VirtualIPs: [{ NetworkID: ov.Id, Addr: expect.stringMatching(/^10\.0\.\d+\.\d+\/24$/) }] });
  // from the cli task on A: every web task by address (two of them on other nodes), and ping across nodes; the
  // frames leave through A's VXLAN device (its counters grow), not some path on this shared host
  const vx = `/sys/class/net/ox${Number(ov.Options['com.docker.network.driver.overlay.vxlanid_list']).toString(16)}-${vxlanHex[0]}/statistics/tx_packets`;
  const tx0 = Number(fs.readFileSync(vx, 'utf8'));
  for (const t of web) {
    const ip = t.NetworksAttachments[0].Addresses[0].split('/')[0];
    const r = await settled(a, 'cli', wget(ip), (x) => x.code === 0, `web task on ${t.NodeID} at ${ip} answers`);
    expect([r.stderr, r.stdout.trim().length > 0]).toEqual(['', true]);
  }
  const far = web.find((t) => t.NodeID !== ids.a)!;
  const ping = await execIn(a, 'cli', ['ping', '-c', '1', '-W', '5', far.NetworksAttachments[0].Addresses[0].split('/')[0]]);
  expect(ping.code).toBe(0);
  expect(Number(fs.readFileSync(vx, 'utf8'))).toBeGreaterThan(tx0);
});

test('names: the service name is its VIP, tasks.<name> the tasks, the VIP spreads over the tasks on every node', async () => {
  const web = running(await tasksOf('web'));
  const taskIPs = web.map((t) => t.NetworksAttachments[0].Addresses[0].split('/')[0]).sort();
  const vip = (await a.request('GET', '/v1.24/services/web')).json().Endpoint.VirtualIPs[0].Addr.split('/')[0];
  for (const n of [a, b, c]) {
    const ns = await execIn(n, 'cli', ['nslookup', 'web']);
    expect(ns.stdout).toContain(`Address: ${vip}\n`);
    await settled(n, 'cli', ['nslookup', 'tasks.web'], (x) => taskIPs.every((ip) => x.stdout.includes(`Address: ${ip}\n`)), 'tasks.web lists the 3 tasks');
  }
  // through the VIP from C (a worker): the answers come from more than one task
  const seen = new Set<string>();
  for (let i = 0; i < 12 && seen.size < 2; i++) {
    const r = await execIn(c, 'cli', wget('web'));
    expect([r.code, r.stderr]).toEqual([0, '']);
    seen.add(r.stdout.trim());
  }
  expect(seen.size).toBeGreaterThan(1);
});

test('dnsrr: the name is the tasks addresses, no VIP', async () => {
  ok(await a.docker(['service', 'create', '--name', 'rr', '--network', 'ov', '--endpoint-mode', 'dnsrr', '--replicas', '2', '--stop-grace-period', '1s', 'busybox', ...HTTPD]));
  const rr = (await until('2 rr tasks running', () => tasksOf('rr'), (t) => running(t).length === 2, 60_000)).value;
  expect((await a.request('GET', '/v1.24/services/rr')).json().Endpoint).toEqual({ Spec: { Mode: 'dnsrr' } });
  const ips = rr.map((t) => t.NetworksAttachments[0].Addresses[0].split('/')[0]);
  await settled(b, 'cli', ['nslookup', 'rr'], (x) => ips.every((ip) => x.stdout.includes(`Address: ${ip}\n`)), 'rr resolves to its 2 tasks');
  const r = await settled(b, 'cli', wget('rr'), (x) => x.code === 0, 'rr answers by name');
  expect([r.stderr, r.stdout.trim().length > 0]).toEqual(['', true]);
});

test("node failure: C's berthd killed, its web task runs elsewhere at a new address, reached by address, tasks.web and the VIP; C back removes the old one", async () => {
  const before = running(await tasksOf('web'));
  const old = before.find((t) => t.NodeID === ids.c)!;
  const oldIP = old.NetworksAttachments[0].Addresses[0].split('/')[0];
  await c.kill();
  const after = (await until('3 web tasks running, none on C', () => tasksOf('web'), (t) => running(t).length === 3 && running(t).every((x) => x.NodeID !== ids.c), 60_000)).value;
  const moved = running(after).find((t) => !before.some((x) => x.ID === t.ID))!;
  const ip = moved.NetworksAttachments[0].Addresses[0].split('/')[0];
  // a new address: the old task is not terminal yet (its node cannot say), so its address stays taken
  expect(ip).not.toBe(oldIP);
  const ips = running(after).map((t) => t.NetworksAttachments[0].Addresses[0].split('/')[0]);
  const host = moved.Status.ContainerStatus.ContainerID.slice(0, 12);
  for (const n of [a, b]) {
    const r = await settled(n, 'cli', wget(ip), (x) => x.code === 0, `the moved task at ${ip} answers`);
    expect(r.stdout.trim()).toBe(host);
    await settled(n, 'cli', ['nslookup', 'tasks.web'], (x) => ips.every((i) => x.stdout.includes(`Address: ${i}\n`)) && !x.stdout.includes(`Address: ${oldIP}\n`), 'tasks.web lists the 3 running tasks, not the old one');
    // 30 requests through the VIP in one exec (each picks one of 3 tasks): the moved task answers some
    await settled(n, 'cli', ['sh', '-c', 'for i in $(seq 30); do wget -qO- http://web/ || exit 1; done'], (x) => x.code === 0 && x.stdout.split('\n').includes(host), 'the VIP reaches the moved task');
  }
  await c.start();
  await until("C's old web task reported shut down", async () => (await a.request('GET', `/v1.24/tasks/${old.ID}`)).json(), (t: any) => t.Status.State === 'shutdown', 60_000);
  await until('no web container on C', async () => (await c.docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=web'])).stdout.trim(), (o) => o === '', 30_000);
});

test('cleanup: services and the network removed, no VXLAN device, bridge or FORWARD rule is left', async () => {
  ok(await a.docker(['service', 'rm', 'web', 'cli', 'rr']));
  await until('overlay network removable', async () => (await b.request('DELETE', '/v1.24/networks/ov')).status, (s) => s === 204, 60_000);
  await until('no overlay devices left', async () => leftovers(), (l) => l.length === 0, 30_000);
});

test('removal on any manager; the others stop listing it', async () => {
  await until('gold1 removed', async () => (await b.request('DELETE', '/v1.24/networks/gold1')).status, (s) => s === 204, 30_000);
  ok(await a.docker(['network', 'rm', 'gold3']));
  for (const n of [a, b, c]) {
    const ls = await n.docker(['network', 'ls', '--filter', 'driver=overlay', '-q']);
    expect(ls.stdout.trim()).toBe('');
  }
});
