// Swarm services benchmark (a script, not a test): time from `POST /services/create` with 10 replicas to 10 running
// tasks on one node, berth against the reference engine (a private dockerd on this host, --bridge=none
// --iptables=false, the same busybox image loaded into both), and on a 3-node berth swarm the time from a worker's
// berthd killed until its tasks run on the other nodes. Run: npm run bench:swarm-services (root; containerd, etcd
// and dockerd installed). Prints JSON.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { median, ms, startDockerd, teardown, until } from './swarm-common';
import { startSwarmNode, swarmIP, SwarmNode } from '../test/helpers/swarm-node';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);
const REPLICAS = 10;

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


async function main(): Promise<void> {
  const ctd = await startPrivateContainerd();
  process.env.BERTH_TEST_CONTAINERD = ctd.address;
  const nodes: SwarmNode[] = [];
  const dockerds: ChildProcess[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-services-'));
  const out: Record<string, unknown> = { samples: SAMPLES, replicas: REPLICAS };
  try {
    // berth, one node
    const one = await startSwarmNode(71, 24890);
    nodes.push(one);
    const A = api(one.socket);
    await loadImage(A);
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

    // berth, three nodes (A, B managers; C worker; 2 s heartbeat): C's berthd killed → its tasks elsewhere
    const [b, c] = await Promise.all([startSwarmNode(72, 24890), startSwarmNode(73, 24890)]);
    nodes.push(b, c);
    for (const n of [b, c]) await loadImage(api(n.socket));
    await A.request('POST', '/v1.24/swarm/init', { ListenAddr: one.addr, AdvertiseAddr: one.ip, Spec: { Dispatcher: { HeartbeatPeriod: 2e9 } } });
    const tokens = (await A.request('GET', '/v1.24/swarm')).json().JoinTokens;
    for (const [n, token] of [[b, tokens.Manager], [c, tokens.Worker]] as const) {
      const r = await api(n.socket).request('POST', '/v1.24/swarm/join', { ListenAddr: n.addr, AdvertiseAddr: n.ip, RemoteAddrs: [one.addr], JoinToken: token });
      if (r.status !== 200) throw new Error(`join: ${r.text}`);
    }
    const idC = (await api(c.socket).request('GET', '/v1.24/info')).json().Swarm.NodeID;
    await until('3 ready', async () => (await A.request('GET', '/v1.24/nodes')).json().filter((n: any) => n.Status.State === 'ready').length === 3);
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
