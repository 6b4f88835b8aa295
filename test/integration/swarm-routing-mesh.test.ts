// The routing mesh (docs/routing-mesh.md) on three berth nodes on 127.P.0.61-63, with the docker CLI: a published
// port answers on every node's advertise address and reaches the tasks on every node round-robin; it follows scale,
// --publish-add/--publish-rm and service rm; a SIGKILLed berthd opens it again; a node whose berthd is gone is
// routed around at once. And --with-registry-auth: the credentials are kept with the service (never shown) and the
// workers pull the task's image from a registry that needs them; without them the workers' tasks are rejected.
import * as http from 'node:http';
import * as net from 'node:net';
import { startRegistry, TestRegistry } from '../helpers/registry';
import { cliOk as ok, closeSwarmNodes, formSwarm, startSwarmNodes } from '../helpers/swarm-cluster';
import { SwarmNode, until } from '../helpers/swarm-node';

jest.setTimeout(120_000);

const PORT = 23890;
const HEARTBEAT_S = 2;
/** Published ports of this run (apart from other runs' by the pid). */
const WEB = 24000 + (process.pid % 1000) * 2;
const WEB2 = WEB + 1;
const HELD = WEB + 2000;
let a: SwarmNode;
let b: SwarmNode;
let c: SwarmNode;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [a, b, c] = await startSwarmNodes([61, 62, 63], PORT, { busybox: true });
}, 120_000);

afterAll(async () => {
  await closeSwarmNodes([a, b, c]);
}, 60_000);

const enc = (f: object) => encodeURIComponent(JSON.stringify(f));
async function tasksOf(on: SwarmNode, service: string): Promise<any[]> {
  const r = await on.request('GET', `/v1.24/tasks?filters=${enc({ service: [service] })}`);
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.json();
}
const running = (ts: any[]) => ts.filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');

/** GET http://ip:port/ → the body (the task's hostname), or the error's code. */
function get(ip: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host: ip, port, path: '/', agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(res.statusCode === 200 ? body.trim() : `status ${res.statusCode}`));
      res.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`));
  });
}

/** n requests through a node's published port: the bodies. */
async function many(n: SwarmNode, port: number, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(await get(n.ip, port));
  return out;
}

/** Task hostnames (the container id's first 12 characters, as the engine's) of a service's running tasks. */
async function hostnames(service: string): Promise<string[]> {
  return running(await tasksOf(a, service))
    .map((t) => t.Status.ContainerStatus.ContainerID.slice(0, 12))
    .sort();
}

const HTTPD = ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 80 -h /www'];

test('a swarm of A (manager), B and C (workers)', async () => {
  [ids.a, ids.b, ids.c] = await formSwarm([a, b, c], { roles: ['worker', 'worker'], heartbeatS: HEARTBEAT_S });
});

test('service create -p: every node answers on the published port and reaches the tasks on every node', async () => {
  ok(await a.docker(['service', 'create', '--name', 'web', '--replicas', '3', '--stop-grace-period', '1s', '-p', `${WEB}:80`, 'busybox', ...HTTPD]));
  const { value } = await until('3 running', () => tasksOf(a, 'web'), (t) => running(t).length === 3, 60_000);
  expect(new Set(running(value).map((t) => t.NodeID)).size).toBe(3);
  const names = await hostnames('web');
  for (const n of [a, b, c]) {
    // every node's listener opens within a round or two of the tasks running
    await until(`${n.ip}:${WEB} answers`, () => get(n.ip, WEB), (body) => names.includes(body), 10_000);
    // round-robin over the three tasks (two of them on other nodes): each answers once its httpd listens (a task
    // that is running but not yet listening refuses, and the proxy moves on to the next)
    const seen = new Set<string>();
    await until(`${n.ip}:${WEB} reaches all 3 tasks`, async () => {
      for (const body of await many(n, WEB, 6)) seen.add(body);
      return names.filter((x) => seen.has(x));
    }, (got) => got.length === names.length, 10_000);
    expect([...seen].filter((x) => !names.includes(x))).toEqual([]);
  }
  // the CLI shows the port as published
  expect((await a.docker(['service', 'ls', '--format', '{{.Ports}}'])).stdout.trim()).toBe(`*:${WEB}->80/tcp`);
});

test('service scale: one task left serves every node; scaled up, the new tasks get traffic', async () => {
  ok(await a.docker(['service', 'scale', 'web=1']));
  await until('1 running', () => tasksOf(a, 'web'), (t) => running(t).length === 1 && t.filter((x) => x.DesiredState === 'running').length === 1, 60_000);
  const [one] = await hostnames('web');
  for (const n of [a, b, c]) await until(`only ${one} via ${n.ip}`, () => many(n, WEB, 3), (bodies) => bodies.every((x) => x === one), 10_000);
  ok(await a.docker(['service', 'scale', 'web=3']));
  await until('3 running', () => tasksOf(a, 'web'), (t) => running(t).length === 3, 60_000);
  const names = await hostnames('web');
  await until('3 tasks via B', async () => [...new Set(await many(b, WEB, 6))].sort(), (seen) => JSON.stringify(seen) === JSON.stringify(names), 10_000);
});

test('a SIGKILLed berthd opens its published ports again; a node whose berthd is gone is routed around', async () => {
  await b.kill();
  // B's tasks' containers still run (containerd is not B's), but nothing reaches them through B's mesh port: A and
  // C skip B's task (a refused connection moves on to the next task) until its alive key lapses
  for (const n of [a, c]) for (const body of await many(n, WEB, 6)) expect(body).not.toMatch(/^error|^status/);
  await b.start();
  await until(`${b.ip}:${WEB} answers again`, () => get(b.ip, WEB), (body) => !/^error|^status/.test(body), 20_000);
});

test('service update --publish-add/--publish-rm moves the port on every node', async () => {
  ok(await a.docker(['service', 'update', '--publish-rm', `${WEB}:80`, '--publish-add', `${WEB2}:80`, 'web']));
  for (const n of [a, b, c]) {
    await until(`${n.ip}:${WEB2} answers`, () => get(n.ip, WEB2), (body) => !/^error|^status/.test(body), 30_000);
    await until(`${n.ip}:${WEB} closed`, () => get(n.ip, WEB), (body) => body === 'error ECONNREFUSED', 10_000);
  }
});

test('service rm closes the port on every node', async () => {
  ok(await a.docker(['service', 'rm', 'web']));
  for (const n of [a, b, c]) await until(`${n.ip}:${WEB2} closed`, () => get(n.ip, WEB2), (body) => body === 'error ECONNREFUSED', 10_000);
  await until('no task containers', async () => (await Promise.all([a, b, c].map((n) => n.docker(['ps', '-a', '-q'])))).map((r) => r.stdout.trim()).join(''), (s) => s === '', 30_000);
});

test('a published port held by another process: accepted as the reference accepts it; the node serves it once freed', async () => {
  // a plain server on A's address and the port (the 20.10 reference also answers 201 and runs the task)
  const holder = net.createServer((s) => s.end('holder\n'));
  await new Promise<void>((r) => holder.listen(HELD, a.ip, r));
  try {
    ok(await a.docker(['service', 'create', '--name', 'held', '--replicas', '1', '--stop-grace-period', '1s', '-p', `${HELD}:80`, 'busybox', ...HTTPD]));
    await until('held running', () => tasksOf(a, 'held'), (t) => running(t).length === 1, 60_000);
    for (const n of [b, c]) await until(`${n.ip}:${HELD} answers`, () => get(n.ip, HELD), (body) => !/^error|^status/.test(body), 10_000);
  } finally {
    await new Promise((r) => holder.close(r));
  }
  await until(`${a.ip}:${HELD} served by the mesh`, () => get(a.ip, HELD), (body) => !/^error|^status/.test(body), 10_000);
  ok(await a.docker(['service', 'rm', 'held']));
});

describe('--with-registry-auth', () => {
  let reg: TestRegistry;
  beforeAll(async () => {
    reg = await startRegistry({ htpasswd: { user: 'alice', password: 's3cret' } });
  });
  afterAll(async () => {
    await reg?.close();
  });

  test('the workers pull the image with the service\'s credentials; inspect never shows them; without them the workers reject the task', async () => {
    const [withAuth, without] = [`${reg.host}/busy:auth`, `${reg.host}/busy:noauth`];
    expect((await a.docker(['login', '-u', 'alice', '-p', 's3cret', reg.host])).code).toBe(0);
    for (const ref of [withAuth, without]) {
      ok(await a.docker(['tag', 'busybox', ref]));
      expect((await a.docker(['push', ref])).code).toBe(0);
    }
    ok(await a.docker(['service', 'create', '--with-registry-auth', '--name', 'authd', '--mode', 'global', '--stop-grace-period', '1s', withAuth, 'sleep', '1000']));
    ok(await a.docker(['service', 'create', '--name', 'anon', '--mode', 'global', '--stop-grace-period', '1s', without, 'sleep', '1000']));
    await until('authd on 3 nodes', () => tasksOf(a, 'authd'), (t) => running(t).length === 3, 60_000);
    expect((await c.docker(['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'])).stdout).toContain(withAuth);
    // A has the image (it pushed it); B and C cannot pull it without credentials
    const { value } = await until('anon rejected on B and C', () => tasksOf(a, 'anon'), (t) => t.filter((x) => x.Status.State === 'rejected' && x.NodeID !== ids.a).length >= 2 && running(t).length === 1, 60_000);
    expect(value.find((x: any) => x.Status.State === 'rejected').Status.Err).toBe(`No such image: ${without}`);
    const raw = (await a.request('GET', '/v1.24/services/authd')).text;
    expect(raw).not.toMatch(/alice|s3cret|PullOptions|RegistryAuth/);
    expect((await a.request('GET', `/v1.24/tasks?filters=${enc({ service: ['authd'] })}`)).text).not.toMatch(/alice|s3cret|PullOptions|RegistryAuth/);
    ok(await a.docker(['service', 'rm', 'authd', 'anon']));
    await until('no task containers', async () => (await Promise.all([a, b, c].map((n) => n.docker(['ps', '-a', '-q'])))).map((r) => r.stdout.trim()).join(''), (s) => s === '', 30_000);
  });
});
