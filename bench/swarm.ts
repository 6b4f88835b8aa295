// Swarm benchmark (a script, not a test): time from `POST /swarm/init` to the node listed ready, from `POST
// /swarm/join` to the joined node listed ready on the manager — for berth and for the reference engine (two private
// dockerds on this host, --bridge=none --iptables=false) — and leader failover in a 3-manager berth cluster (kill -9
// of the leader's berthd and etcd until a survivor lists a new leader and the old one down). Every address is on
// 127.0.0.0/8. Run: npm run bench:swarm (root; containerd, etcd and dockerd installed).
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../test/helpers/berth';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { median, ms, startDockerd, teardown, until } from './swarm-common';
import { startSwarmNode, swarmIP, SwarmNode } from '../test/helpers/swarm-node';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);

interface Api {
  request: (method: string, p: string, body?: unknown) => Promise<{ status: number; json: () => any }>;
}

const api = (socket: string): Api => ({ request: (method, p, body) => request(socket, method, p, body === undefined ? {} : { body }) });



async function readyOn(manager: Api, nodeId: string): Promise<boolean> {
  const r = await manager.request('GET', `/v1.24/nodes/${nodeId}`);
  return r.status === 200 && r.json().Status?.State === 'ready';
}

/** init → ready, then join → ready, on two engines reachable as `a` and `b` advertising ipA and ipB. */
async function initAndJoin(a: Api, ipA: string, b: Api, ipB: string, port: number): Promise<{ init: number; join: number }> {
  let t0 = process.hrtime.bigint();
  const init = await a.request('POST', '/v1.24/swarm/init', { ListenAddr: `${ipA}:${port}`, AdvertiseAddr: ipA });
  if (init.status !== 200) throw new Error(`init: ${JSON.stringify(init.json())}`);
  const id = init.json() as string;
  await until('init ready', () => readyOn(a, id));
  const initMs = ms(t0);
  const token = (await a.request('GET', '/v1.24/swarm')).json().JoinTokens.Worker;
  t0 = process.hrtime.bigint();
  const join = await b.request('POST', '/v1.24/swarm/join', { ListenAddr: `${ipB}:${port}`, AdvertiseAddr: ipB, RemoteAddrs: [`${ipA}:${port}`], JoinToken: token });
  if (join.status !== 200) throw new Error(`join: ${JSON.stringify(join.json())}`);
  const joinedId = (await b.request('GET', '/v1.24/info')).json().Swarm.NodeID;
  await until('join ready', () => readyOn(a, joinedId));
  const joinMs = ms(t0);
  await b.request('POST', '/v1.24/swarm/leave?force=1');
  await a.request('POST', '/v1.24/swarm/leave?force=1');
  return { init: initMs, join: joinMs };
}



async function main(): Promise<void> {
  const ctd = await startPrivateContainerd();
  process.env.BERTH_TEST_CONTAINERD = ctd.address;
  const nodes: SwarmNode[] = [];
  const dockerds: ChildProcess[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-swarm-'));
  const out: Record<string, unknown> = { samples: SAMPLES };
  try {
    // berth: init and join
    const [a, b, c] = await Promise.all([startSwarmNode(61, 24790), startSwarmNode(62, 24790), startSwarmNode(63, 24790)]);
    nodes.push(a, b, c);
    const berth: { init: number; join: number }[] = [];
    for (let i = 0; i < SAMPLES; i++) berth.push(await initAndJoin(api(a.socket), a.ip, api(b.socket), b.ip, 24790));
    out.berth = { initToReadyMs: median(berth.map((x) => x.init)), joinToReadyMs: median(berth.map((x) => x.join)), runs: berth };

    // the reference: two private dockerds
    const d1 = await startDockerd(path.join(scratch, 'd1'), ctd.address);
    const d2 = await startDockerd(path.join(scratch, 'd2'), ctd.address);
    dockerds.push(d1.child, d2.child);
    const ref: { init: number; join: number }[] = [];
    for (let i = 0; i < SAMPLES; i++) ref.push(await initAndJoin(api(d1.socket), swarmIP(64), api(d2.socket), swarmIP(65), 24797));
    out.reference = { initToReadyMs: median(ref.map((x) => x.init)), joinToReadyMs: median(ref.map((x) => x.join)), runs: ref };

    // berth: leader failover among 3 managers, 1 s heartbeat
    const A = api(a.socket);
    await A.request('POST', '/v1.24/swarm/init', { ListenAddr: a.addr, AdvertiseAddr: a.ip, Spec: { Dispatcher: { HeartbeatPeriod: 1e9 } } });
    const token = (await A.request('GET', '/v1.24/swarm')).json().JoinTokens.Manager;
    for (const n of [b, c]) {
      const r = await api(n.socket).request('POST', '/v1.24/swarm/join', { ListenAddr: n.addr, AdvertiseAddr: n.ip, RemoteAddrs: [a.addr], JoinToken: token });
      if (r.status !== 200) throw new Error(`manager join: ${JSON.stringify(r.json())}`);
    }
    const idA = (await A.request('GET', '/v1.24/info')).json().Swarm.NodeID;
    await until('3 managers ready', async () => (await A.request('GET', '/v1.24/nodes')).json().filter((n: any) => n.Status.State === 'ready').length === 3);
    await new Promise((r) => setTimeout(r, 6000)); // etcd accepts reconfiguration (and elections settle) after 5 s
    const t0 = process.hrtime.bigint();
    await a.kill(true);
    const B = api(b.socket);
    await until('new leader, old down', async () => {
      const list = (await B.request('GET', '/v1.24/nodes')).json() as any[];
      const old = list.find((n) => n.ID === idA);
      return old?.Status.State === 'down' && list.some((n) => n.ID !== idA && n.ManagerStatus?.Leader);
    });
    out.berthFailoverMs = { heartbeatPeriodMs: 1000, ms: ms(t0) };
  } finally {
    await teardown(nodes, dockerds, ctd, scratch);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  }
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err) + '\n');
  process.exit(1);
});
