// The routing mesh (docs/routing-mesh.md): the pure plan, and two MeshProxy "nodes" on loopback addresses forwarding
// TCP and UDP to echo servers standing in for task containers, locally and through the other node's mesh port.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { allowsLocal, helloLine, meshAddrOf, meshPlan, parseHello, type MeshPlan } from '../../src/cluster/routing-mesh-plan';
import { MeshProxy } from '../../src/cluster/routing-mesh-proxy';
import type { NodeRecord, ServiceRecord, TaskRecord } from '../../src/types/swarm';
import { createLogger } from '../../src/log';

const node = (id: string, addr: string, clusterPort: number): NodeRecord =>
  ({ id, addr, clientURL: `https://${addr}:${clusterPort + 2}`, peerURL: '', managerAddr: `${addr}:${clusterPort}` }) as NodeRecord;
const task = (ID: string, NodeID: string, state = 'running', desired = 'running'): TaskRecord =>
  ({ ID, NodeID, ServiceID: 's1', DesiredState: desired, Status: { State: state } }) as TaskRecord;
const service = (ports: ServiceRecord['ports']): ServiceRecord => ({ id: 's1', ports }) as ServiceRecord;

describe('meshPlan', () => {
  test('ingress TCP and UDP ports, backends running on alive nodes, by task id', () => {
    const svc = service([
      { Protocol: 'tcp', TargetPort: 80, PublishedPort: 30000, PublishMode: 'ingress' },
      { Protocol: 'udp', TargetPort: 53, PublishedPort: 30001, PublishMode: 'ingress' },
      { Protocol: 'tcp', TargetPort: 81, PublishedPort: 30002, PublishMode: 'host' },
      { Protocol: 'sctp', TargetPort: 82, PublishedPort: 30003, PublishMode: 'ingress' },
    ]);
    const tasks = [task('t3', 'n2'), task('t1', 'n1'), task('t2', 'n1', 'starting'), task('t4', 'n1', 'running', 'shutdown'), task('t5', 'n3'), task('t6', 'gone')];
    const plan = meshPlan([svc], tasks, [node('n1', '10.0.0.1', 2377), node('n2', '10.0.0.2', 2377), node('n3', '10.0.0.3', 2377)], new Set(['n1', 'n2', 'gone']));
    expect([...plan.keys()]).toEqual(['tcp/30000', 'udp/30001']);
    expect(plan.get('tcp/30000')!.backends).toEqual([
      { taskId: 't1', nodeId: 'n1', meshAddr: '10.0.0.1:2378', targetPort: 80 },
      { taskId: 't3', nodeId: 'n2', meshAddr: '10.0.0.2:2378', targetPort: 80 },
    ]);
    expect(plan.get('udp/30001')!.backends.map((b) => b.targetPort)).toEqual([53, 53]);
    expect(allowsLocal(plan, 'n1', 'tcp', 't1', 80)).toBe(true);
    expect(allowsLocal(plan, 'n1', 'tcp', 't1', 81)).toBe(false);
    expect(allowsLocal(plan, 'n1', 'udp', 't1', 80)).toBe(false);
    expect(allowsLocal(plan, 'n1', 'tcp', 't3', 80)).toBe(false);
  });

  test('the mesh address is the cluster port + 1; hello lines', () => {
    expect(meshAddrOf(node('n', '127.5.0.1', 23880))).toBe('127.5.0.1:23881');
    expect(parseHello(helloLine('abc123', 8080).trimEnd())).toEqual({ taskId: 'abc123', targetPort: 8080 });
    for (const bad of ['BERTH-MESH1 abc 0', 'BERTH-MESH1 abc 70000', 'BERTH-MESH1 a/b 80', 'GET / HTTP/1.1', 'BERTH-MESH1 abc 80 x']) expect(parseHello(bad)).toBeUndefined();
  });
});

describe('MeshProxy', () => {
  const logger = createLogger('error');
  // two nodes and a "container" address per node, on loopback
  const A = '127.77.0.1';
  const B = '127.77.0.2';
  const CTR_A = '127.77.0.11';
  const CTR_B = '127.77.0.12';
  const servers: { close(): void }[] = [];
  let pa: MeshProxy;
  let pb: MeshProxy;
  let plan: MeshPlan = new Map();
  let meshA: number;
  let meshB: number;
  let pubTCP: number;
  let pubUDP: number;
  const running = new Map([
    ['ta', CTR_A],
    ['tb', CTR_B],
  ]);

  const freePort = (host: string): Promise<number> =>
    new Promise((resolve) => {
      const s = net.createServer().listen(0, host, () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });

  beforeAll(async () => {
    // echo servers naming their container
    for (const [name, ip] of [['A', CTR_A], ['B', CTR_B]]) {
      const t = net.createServer((s) => s.on('data', (d) => s.write(`${name}:${d}`)));
      await new Promise<void>((r) => t.listen(7070, ip, r));
      const u = dgram.createSocket('udp4');
      u.on('message', (m, ri) => u.send(`${name}:${m}`, ri.port, ri.address));
      await new Promise<void>((r) => u.bind(7071, ip, r));
      servers.push(t, u);
    }
    [meshA, meshB, pubTCP, pubUDP] = [await freePort(A), await freePort(B), await freePort(A), await freePort(A)];
    const mk = (ip: string, nodeId: string) =>
      new MeshProxy(ip, {
        nodeId,
        localTarget: (id) => (id === (nodeId === 'a' ? 'ta' : 'tb') ? running.get(id) : undefined),
        allows: (proto, id, port) => allowsLocal(plan, nodeId, proto, id, port),
        logger,
      });
    pa = mk(A, 'a');
    pb = mk(B, 'b');
    await pa.openMeshPort(meshA);
    await pb.openMeshPort(meshB);
    const backends = (port: number) => [
      { taskId: 'ta', nodeId: 'a', meshAddr: `${A}:${meshA}`, targetPort: port },
      { taskId: 'tb', nodeId: 'b', meshAddr: `${B}:${meshB}`, targetPort: port },
    ];
    plan = new Map([
      [`tcp/${pubTCP}`, { proto: 'tcp', port: pubTCP, serviceId: 's1', backends: backends(7070) }],
      [`udp/${pubUDP}`, { proto: 'udp', port: pubUDP, serviceId: 's1', backends: backends(7071) }],
    ]);
    await pa.apply(plan);
    await pb.apply(new Map());
    expect(pa.openPorts().sort()).toEqual([`tcp/${pubTCP}`, `udp/${pubUDP}`]);
  });

  afterAll(() => {
    pa?.close();
    pb?.close();
    for (const s of servers) s.close();
  });

  const askTCP = (host: string, port: number, msg: string): Promise<string> =>
    new Promise((resolve) => {
      const s = net.connect(port, host, () => s.write(msg));
      s.setEncoding('utf8');
      s.once('data', (d) => {
        resolve(String(d));
        s.destroy();
      });
      s.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      s.on('close', () => resolve('closed'));
    });

  test('TCP: round-robin over a local task and a remote one (through its node\'s mesh port)', async () => {
    const got = [];
    for (let i = 0; i < 4; i++) got.push(await askTCP(A, pubTCP, 'hi'));
    expect(got.sort()).toEqual(['A:hi', 'A:hi', 'B:hi', 'B:hi']);
  });

  test('TCP: a backend that is not running is skipped', async () => {
    running.delete('tb');
    try {
      for (let i = 0; i < 3; i++) expect(await askTCP(A, pubTCP, 'x')).toBe('A:x');
    } finally {
      running.set('tb', CTR_B);
    }
  });

  test("the mesh port refuses what the plan does not publish", async () => {
    expect(await askTCP(B, meshB, helloLine('tb', 22))).toBe('ERR\n');
    expect(await askTCP(B, meshB, 'GET / HTTP/1.0\n')).toBe('ERR\n');
    expect(await askTCP(B, meshB, helloLine('tb', 7070) + 'ok')).toBe('OK\n');
  });

  test('UDP: each client is a session on one backend; replies come back from the published port', async () => {
    const ask = async (): Promise<string[]> => {
      const c = dgram.createSocket('udp4');
      await new Promise<void>((r) => c.bind(0, '127.0.0.1', r));
      const replies: string[] = [];
      const got = new Promise<void>((r) =>
        c.on('message', (m, ri) => {
          expect(ri).toMatchObject({ address: A, port: pubUDP });
          replies.push(String(m));
          if (replies.length === 2) r();
        }),
      );
      c.send('one', pubUDP, A);
      c.send('two', pubUDP, A);
      await got;
      c.close();
      return replies;
    };
    const first = await ask();
    const second = await ask();
    const who = (r: string[]) => r[0][0];
    expect(new Set(first.map((x) => x[0])).size).toBe(1);
    expect(new Set(second.map((x) => x[0])).size).toBe(1);
    expect([who(first), who(second)].sort()).toEqual(['A', 'B']);
    expect([...first, ...second].map((x) => x.slice(2)).sort()).toEqual(['one', 'one', 'two', 'two']);
  });

  test('a port no longer in the plan is closed', async () => {
    await pa.apply(new Map([...plan].filter(([k]) => k.startsWith('udp'))));
    expect(await askTCP(A, pubTCP, 'x')).toBe('error ECONNREFUSED');
    await pa.apply(plan);
    expect(await askTCP(A, pubTCP, 'x')).toMatch(/^[AB]:x$/);
  });
});
