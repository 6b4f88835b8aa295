// A berth swarm of several nodes for the integration tests (the set-up the services, routing-mesh and overlay files
// share): start the nodes together (when one fails to start, those already started are closed before the error is
// thrown: no berthd, etcd, bridge or folder is left behind), form the swarm with the docker CLI (init on the first,
// join the others as managers or workers) and wait until every node is ready.
import { loadBusybox } from './busybox-image';
import { startSwarmNode, swarmNodeId, SwarmNode, until } from './swarm-node';

export interface NodeSpec {
  /** N of 127.P.0.N (swarmIP). */
  n: number;
  /** More berthd flags. */
  flags?: string[];
}

/** Closes every node given (undefined ones skipped), all at once; the first failure is thrown after all are done. */
export async function closeSwarmNodes(nodes: (SwarmNode | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(nodes.filter((x): x is SwarmNode => !!x).map((x) => x.close()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Starts the nodes (cluster port `port`) together, with the busybox image loaded on each when `busybox` is set.
 * All or nothing: when one fails, the ones that started are closed and the first error is thrown.
 */
export async function startSwarmNodes(specs: (number | NodeSpec)[], port: number, opts: { busybox?: boolean } = {}): Promise<SwarmNode[]> {
  const started = await Promise.allSettled(
    specs.map(async (s) => {
      const { n, flags } = typeof s === 'number' ? { n: s, flags: [] } : s;
      const node = await startSwarmNode(n, port, flags);
      try {
        if (opts.busybox) await loadBusybox(node);
      } catch (err) {
        await node.close().catch(() => undefined);
        throw err;
      }
      return node;
    }),
  );
  const nodes = started.filter((r): r is PromiseFulfilledResult<SwarmNode> => r.status === 'fulfilled').map((r) => r.value);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await closeSwarmNodes(nodes).catch(() => undefined);
    throw failed.reason;
  }
  return nodes;
}

/** The stderr a CLI run may have besides nothing: the reference's digest warning (no registry here). */
const DIGEST_WARNING = /image \S+ could not be accessed on a registry to record\nits digest\. Each node will access \S+ independently,\npossibly leading to different nodes running different\nversions of the image\.\n\n?/g;

/**
 * A CLI run that must succeed; the digest warning is the only stderr allowed. Throws (no jest `expect`: benches use
 * this file too) with the exit code and the output.
 */
export function cliOk(r: { code: number; stdout: string; stderr: string }, what = 'docker'): void {
  const rest = r.stderr.replace(DIGEST_WARNING, '');
  if (r.code !== 0 || rest !== '') throw new Error(`${what}: exit ${r.code}, stderr ${JSON.stringify(rest)}, stdout ${JSON.stringify(r.stdout.slice(0, 500))}`);
}

export interface FormOptions {
  /** The role each node after the first joins as (the first inits the swarm and is the leader). */
  roles: ('manager' | 'worker')[];
  /** `--dispatcher-heartbeat` in seconds (the engine's default when absent). */
  heartbeatS?: number;
  /** How long the nodes may take to be ready (ms). */
  readyMs?: number;
}

/**
 * Forms a swarm with the CLI: `swarm init` on nodes[0] (advertise and listen addresses its own), each other node
 * `swarm join`s nodes[0] with the token of its role; then waits until nodes[0] lists every node ready. Returns the
 * node ids in the nodes' order.
 */
export async function formSwarm(nodes: SwarmNode[], opts: FormOptions): Promise<string[]> {
  const [first, ...rest] = nodes;
  if (opts.roles.length !== rest.length) throw new Error(`formSwarm: ${rest.length} nodes to join, ${opts.roles.length} roles`);
  const hb = opts.heartbeatS ? ['--dispatcher-heartbeat', `${opts.heartbeatS}s`] : [];
  cliOk(await first.docker(['swarm', 'init', '--advertise-addr', first.ip, '--listen-addr', first.addr, ...hb]), 'swarm init');
  const token: Record<string, string> = {};
  for (const role of new Set(opts.roles)) {
    const r = await first.docker(['swarm', 'join-token', '-q', role]);
    cliOk(r, `swarm join-token ${role}`);
    token[role] = r.stdout.trim();
  }
  for (const [i, node] of rest.entries()) {
    cliOk(await node.docker(['swarm', 'join', '--token', token[opts.roles[i]], '--advertise-addr', node.ip, '--listen-addr', node.addr, first.addr]), `swarm join of node ${node.n}`);
  }
  const ids = await Promise.all(nodes.map((x) => swarmNodeId(x)));
  await until(
    `${nodes.length} ready nodes`,
    async () => (await first.request('GET', '/v1.24/nodes')).json(),
    (ns: { Status: { State: string } }[]) => ns.length === nodes.length && ns.every((x) => x.Status.State === 'ready'),
    opts.readyMs ?? 20_000,
  );
  return ids;
}
