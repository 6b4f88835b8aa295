// Swarm services benchmark (a script, not a test): time from `POST /services/create` with 10 replicas to 10 running
// tasks on one node, berth against the reference engine (a private dockerd on this host, --bridge=none
// --iptables=false, the same busybox image loaded into both), and on a 3-node berth swarm the time from a worker's
// berthd killed until its tasks run on the other nodes, and the routing mesh's throughput (requests per second and
// MB/s of one large download) through the published port of the node running the task and of another node, against
// a direct request to the task's container, interleaved; and over an overlay network, from a task on another node,
// a service's VIP (iptables statistic DNAT) against the task's overlay address. Run: npm run bench:swarm-services
// (root; containerd, etcd and dockerd installed). Prints JSON.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { median, ms, startDockerd, teardown, until } from './swarm-common';
import { startSwarmNode, swarmIP, SwarmNode } from '../test/helpers/swarm-node';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);
const REPLICAS = 10;
/** BENCH_MESH_ONLY=1: only the routing mesh's figures (the 3-node swarm, no create-to-running or reschedule runs). */
const MESH_ONLY = !!process.env.BENCH_MESH_ONLY;

interface Api {
  request: (method: string, p: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; json: () => any; text: string }>;
}

const api = (socket: string): Api => ({ request: (method, p, body, headers) => request(socket, method, p, body === undefined ? {} : { body, headers }) });


const enc = (f: object) => encodeURIComponent(JSON.stringify(f));

async function runningTasks(e: Api, service: string): Promise<any[]> {
  const r = await e.request('GET', `/v1.24/tasks?filters=${enc({ service: [service] })}`);
  if (r.status !== 200) return [];
  return (r.json() as any[]).filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');
}

/** create --replicas 10 → 10 running, then rm and wait until no task is left. */
async function createToRunning(e: Api, name: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await e.request('POST', '/v1.24/services/create', { Name: name, TaskTemplate: { ContainerSpec: { Image: 'busybox:latest', Command: ['sleep', '1000'], StopGracePeriod: 1e9 } }, Mode: { Replicated: { Replicas: REPLICAS } } });
  if (r.status !== 201) throw new Error(`create: ${r.text}`);
  await until(`${REPLICAS} running`, async () => (await runningTasks(e, name)).length === REPLICAS, 120_000, 50);
  const took = ms(t0);
  await e.request('DELETE', `/v1.24/services/${name}`);
  await until('tasks gone', async () => (await e.request('GET', '/v1.24/tasks')).json().length === 0);
  return took;
}

async function loadImage(e: Api): Promise<void> {
  const archive = await buildBusyboxImage({ tags: ['busybox:latest'] });
  const r = await e.request('POST', '/v1.24/images/load?quiet=1', archive, { 'Content-Type': 'application/x-tar' });
  if (r.status !== 200) throw new Error(`load: ${r.text}`);
}

/** One GET on a new connection: the body's length. */
function get(host: string, port: number, p: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path: p, agent: false }, (res) => {
      let n = 0;
      res.on('data', (d: Buffer) => (n += d.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`status ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const MESH_REQUESTS = Number(process.env.BENCH_MESH_REQUESTS ?? 400);
const MESH_CONCURRENCY = 4;
const BIG_MB = 64;

/** Requests per second (MESH_REQUESTS small GETs, MESH_CONCURRENCY at a time, a connection each). */
async function requestRate(host: string, port: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: MESH_CONCURRENCY }, async () => {
      while (next++ < MESH_REQUESTS) await get(host, port, '/');
    }),
  );
  return Math.round(MESH_REQUESTS / (ms(t0) / 1000));
}

/** MB/s of one BIG_MB download. */
async function bulk(host: string, port: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  const n = await get(host, port, '/big');
  if (n !== BIG_MB << 20) throw new Error(`short body: ${n}`);
  return Math.round((BIG_MB / (ms(t0) / 1000)) * 10) / 10;
}

/**
 * A one-task httpd service on node `owner`, published on 30080: the direct address (its container's bridge IP:80)
 * against the mesh through the owner's advertise address (local task) and through another node's (remote task:
 * proxy, the owner's mesh port, the container), SAMPLES rounds interleaved; medians.
 */
async function meshThroughput(A: Api, owner: SwarmNode, ownerId: string, other: SwarmNode): Promise<Record<string, unknown>> {
  const sh = `mkdir -p /www && echo hello > /www/index.html && dd if=/dev/zero of=/www/big bs=1M count=${BIG_MB} 2>/dev/null && exec httpd -f -p 80 -h /www`;
  const r = await A.request('POST', '/v1.24/services/create', {
    Name: 'meshweb',
    TaskTemplate: { ContainerSpec: { Image: 'busybox:latest', Command: ['sh', '-c', sh], StopGracePeriod: 1e9 }, Placement: { Constraints: [`node.id==${ownerId}`] } },
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 30080 }] },
  });
  if (r.status !== 201) throw new Error(`meshweb: ${r.text}`);
  await until('meshweb running', async () => (await runningTasks(A, 'meshweb')).length === 1);
  const [task] = await runningTasks(A, 'meshweb');
  const ip = (await api(owner.socket).request('GET', `/v1.24/containers/${task.Status.ContainerStatus.ContainerID}/json`)).json().NetworkSettings.IPAddress;
  const targets: Record<string, [string, number]> = { direct: [ip, 80], meshLocal: [owner.ip, 30080], meshRemote: [other.ip, 30080] };
  for (const [h, p] of Object.values(targets)) await until(`${h}:${p} answers`, async () => (await get(h, p, '/')) > 0);
  const rate: Record<string, number[]> = { direct: [], meshLocal: [], meshRemote: [] };
  const mbs: Record<string, number[]> = { direct: [], meshLocal: [], meshRemote: [] };
  for (let i = 0; i < SAMPLES; i++) {
    for (const [k, [h, p]] of Object.entries(targets)) {
      rate[k].push(await requestRate(h, p));
      mbs[k].push(await bulk(h, p));
    }
  }
  await A.request('DELETE', '/v1.24/services/meshweb');
  const med = (o: Record<string, number[]>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, median(v)]));
  const rates = med(rate);
  const mb = med(mbs);
  return {
    requests: MESH_REQUESTS,
    concurrency: MESH_CONCURRENCY,
    requestsPerSecond: rates,
    requestRateVsDirect: { meshLocal: +(rates.meshLocal / rates.direct).toFixed(2), meshRemote: +(rates.meshRemote / rates.direct).toFixed(2) },
    bulkMBps: mb,
    bulkVsDirect: { meshLocal: +(mb.meshLocal / mb.direct).toFixed(2), meshRemote: +(mb.meshRemote / mb.direct).toFixed(2) },
    runs: { requestsPerSecond: rate, bulkMBps: mbs },
    loadAverage: os.loadavg().map((x) => +x.toFixed(2)),
  };
}

/**
 * Runs `sh -c script` in a container on a node through the CLI (it must exit 0): the script's own time in ms, read
 * inside the container from /proc/uptime before and after it (10 ms resolution; busybox's date has no %N), so the
 * exec's cost is not counted.
 */
async function timedExec(n: SwarmNode, id: string, script: string): Promise<number> {
  const r = await n.docker(['exec', id, 'sh', '-c', `a=$(cut -d' ' -f1 /proc/uptime); ${script} || exit 1; b=$(cut -d' ' -f1 /proc/uptime); echo "$a $b"`], 300_000);
  if (r.code !== 0) throw new Error(`exec ${script}: ${r.code} ${r.stderr}`);
  const [a, b] = r.stdout.trim().split('\n').pop()!.split(' ').map(Number);
  return Math.max((b - a) * 1000, 10);
}

/**
 * Overlay networking and the VIP (docs/overlay.md): a one-task httpd service on node `ownerId` on an overlay network,
 * a client task on node `client`; from inside the client, VIP_REQUESTS sequential GETs (a busybox wget process each)
 * and one BIG_MB download, to the task's overlay address (direct: across VXLAN) and to the service's VIP (the
 * client's own iptables statistic DNAT, then the same path), SAMPLES rounds interleaved, each timed inside the
 * client container; medians.
 */
const VIP_REQUESTS = Number(process.env.BENCH_VIP_REQUESTS ?? 200);
async function vipThroughput(A: Api, ownerId: string, client: SwarmNode, clientId: string): Promise<Record<string, unknown>> {
  const net = await A.request('POST', '/v1.24/networks/create', { Name: 'benchov', Driver: 'overlay' });
  if (net.status !== 201) throw new Error(`benchov: ${net.text}`);
  const sh = `mkdir -p /www && echo hello > /www/index.html && dd if=/dev/zero of=/www/big bs=1M count=${BIG_MB} 2>/dev/null && exec httpd -f -p 80 -h /www`;
  const svc = (name: string, node: string, cmd: string[]) => ({ Name: name, TaskTemplate: { ContainerSpec: { Image: 'busybox:latest', Command: cmd, StopGracePeriod: 1e9 }, Placement: { Constraints: [`node.id==${node}`] } }, Mode: { Replicated: { Replicas: 1 } }, Networks: [{ Target: 'benchov' }] });
  for (const body of [svc('vipweb', ownerId, ['sh', '-c', sh]), svc('vipcli', clientId, ['sleep', '1000'])]) {
    const r = await A.request('POST', '/v1.24/services/create', body);
    if (r.status !== 201) throw new Error(`${body.Name}: ${r.text}`);
  }
  await until('vipweb and vipcli running', async () => (await runningTasks(A, 'vipweb')).length === 1 && (await runningTasks(A, 'vipcli')).length === 1, 120_000);
  const [task] = await runningTasks(A, 'vipweb');
  const direct = task.NetworksAttachments[0].Addresses[0].split('/')[0];
  const vip = (await A.request('GET', '/v1.24/services/vipweb')).json().Endpoint.VirtualIPs[0].Addr.split('/')[0];
  const cli = (await client.docker(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=vipcli'])).stdout.trim();
  const targets: Record<string, string> = { direct, vip };
  for (const ip of Object.values(targets)) await until(`${ip} answers in vipcli`, async () => (await timedExec(client, cli, `wget -qO- http://${ip}/ >/dev/null`)) > 0, 30_000, 200);
  const rate: Record<string, number[]> = { direct: [], vip: [] };
  const mbs: Record<string, number[]> = { direct: [], vip: [] };
  for (let i = 0; i < SAMPLES; i++) {
    for (const [k, ip] of Object.entries(targets)) {
      const t = await timedExec(client, cli, `i=0; while [ $i -lt ${VIP_REQUESTS} ]; do wget -qO- http://${ip}/ >/dev/null || exit 1; i=$((i+1)); done`);
      rate[k].push(Math.round(VIP_REQUESTS / (t / 1000)));
      const big = await timedExec(client, cli, `wget -qO- http://${ip}/big | wc -c | grep -qx ${BIG_MB << 20}`);
      mbs[k].push(Math.round((BIG_MB / (big / 1000)) * 10) / 10);
    }
  }
  for (const name of ['vipweb', 'vipcli']) await A.request('DELETE', `/v1.24/services/${name}`);
  await until('benchov removable', async () => (await A.request('DELETE', '/v1.24/networks/benchov')).status === 204, 60_000, 500);
  const med = (o: Record<string, number[]>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, median(v)]));
  const rates = med(rate);
  const mb = med(mbs);
  return {
    requests: VIP_REQUESTS,
    from: 'a task on another node than the server task, one wget process per request, sequential',
    requestsPerSecond: rates,
    vipVsDirect: +(rates.vip / rates.direct).toFixed(2),
    bulkMBps: mb,
    bulkVipVsDirect: +(mb.vip / mb.direct).toFixed(2),
    runs: { requestsPerSecond: rate, bulkMBps: mbs },
    loadAverage: os.loadavg().map((x) => +x.toFixed(2)),
  };
}

async function main(): Promise<void> {
  const ctd = await startPrivateContainerd();
  process.env.BERTH_TEST_CONTAINERD = ctd.address;
  const nodes: SwarmNode[] = [];
  const dockerds: ChildProcess[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-services-'));
  const out: Record<string, unknown> = { samples: SAMPLES, replicas: REPLICAS };
  try {
    // berth, one node
    // each node its own VXLAN port (they share this machine's network namespace: docs/overlay.md)
    const vxlan = (i: number) => ['--vxlan-port', String(41000 + (process.pid % 3000) * 3 + i)];
    const one = await startSwarmNode(71, 24890, vxlan(0));
    nodes.push(one);
    const A = api(one.socket);
    await loadImage(A);
    if (!MESH_ONLY) {
      await A.request('POST', '/v1.24/swarm/init', { ListenAddr: one.addr, AdvertiseAddr: one.ip });
      const berth: number[] = [];
      for (let i = 0; i < SAMPLES; i++) berth.push(await createToRunning(A, `b${i}`));
      out.berthCreateToRunningMs = { median: median(berth), runs: berth };
      await A.request('POST', '/v1.24/swarm/leave?force=1');

      // the reference, one node (a private dockerd)
      const d = await startDockerd(path.join(scratch, 'd1'), ctd.address);
      dockerds.push(d.child);
      const D = api(d.socket);
      await loadImage(D);
      const init = await D.request('POST', '/v1.24/swarm/init', { ListenAddr: `${swarmIP(74)}:24897`, AdvertiseAddr: swarmIP(74) });
      if (init.status !== 200) throw new Error(`reference init: ${init.text}`);
      const ref: number[] = [];
      for (let i = 0; i < SAMPLES; i++) ref.push(await createToRunning(D, `r${i}`));
      out.referenceCreateToRunningMs = { median: median(ref), runs: ref };
      await D.request('POST', '/v1.24/swarm/leave?force=1');
    }

    // berth, three nodes (A, B managers; C worker; 2 s heartbeat): C's berthd killed → its tasks elsewhere
    const [b, c] = await Promise.all([startSwarmNode(72, 24890, vxlan(1)), startSwarmNode(73, 24890, vxlan(2))]);
    nodes.push(b, c);
    for (const n of [b, c]) await loadImage(api(n.socket));
    await A.request('POST', '/v1.24/swarm/init', { ListenAddr: one.addr, AdvertiseAddr: one.ip, Spec: { Dispatcher: { HeartbeatPeriod: 2e9 } } });
    const tokens = (await A.request('GET', '/v1.24/swarm')).json().JoinTokens;
    for (const [n, token] of [[b, tokens.Manager], [c, tokens.Worker]] as const) {
      const r = await api(n.socket).request('POST', '/v1.24/swarm/join', { ListenAddr: n.addr, AdvertiseAddr: n.ip, RemoteAddrs: [one.addr], JoinToken: token });
      if (r.status !== 200) throw new Error(`join: ${r.text}`);
    }
    const idC = (await api(c.socket).request('GET', '/v1.24/info')).json().Swarm.NodeID;
    const idB = (await api(b.socket).request('GET', '/v1.24/info')).json().Swarm.NodeID;
    await until('3 ready', async () => (await A.request('GET', '/v1.24/nodes')).json().filter((n: any) => n.Status.State === 'ready').length === 3);
    if (!process.env.BENCH_SKIP_MESH) {
      out.routingMesh = await meshThroughput(A, b, idB, c);
      out.overlayVip = await vipThroughput(A, idB, c, idC);
    }
    if (MESH_ONLY) return;
    await A.request('POST', '/v1.24/services/create', { Name: 'web', TaskTemplate: { ContainerSpec: { Image: 'busybox:latest', Command: ['sleep', '1000'], StopGracePeriod: 1e9 } }, Mode: { Replicated: { Replicas: 6 } } });
    await until('6 running', async () => (await runningTasks(A, 'web')).length === 6);
    const onC = (await runningTasks(A, 'web')).filter((t) => t.NodeID === idC).length;
    const t0 = process.hrtime.bigint();
    await c.kill();
    await until('rescheduled', async () => {
      const ts = await runningTasks(A, 'web');
      return ts.length === 6 && ts.every((t) => t.NodeID !== idC);
    });
    out.berthRescheduleAfterNodeFailureMs = { heartbeatPeriodMs: 2000, tasksOnFailedNode: onC, ms: ms(t0) };
  } finally {
    await teardown(nodes, dockerds, ctd, scratch);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  }
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err) + '\n');
  process.exit(1);
});
