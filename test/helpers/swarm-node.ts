// berth nodes for the swarm tests: each a real bin/berthd process (so that a test can SIGKILL it) with its own data
// root, socket, containerd namespace, bridge name and subnet, advertising 127.P.0.N (P from this process's pid, so
// that two test runs on one machine never share an address). close() stops the berthd and
// the etcd member it started (by the pid file under its data root), removes its containerd namespace, bridge and
// folder — whatever state the test left it in.
import { execFile, spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdAddress, request, RequestOptions, TestResponse, testBridgeSubnet } from './berth';
import { cleanupNamespace } from './cleanup';
import { recordTestBerth } from './test-berths';
import { Containerd } from '../../src/containerd/client';
import { bridgeRules, removeRules } from '../../src/network/bridge';

/** The repository (this file runs from test/helpers, or compiled from dist/test/helpers by a bench). */
const ROOT = [path.resolve(__dirname, '../..'), path.resolve(__dirname, '../../..')].find((d) => fs.existsSync(path.join(d, 'bin', 'berthd')))!;

export interface SwarmNode {
  n: number;
  ip: string;
  /** The cluster endpoint, 127.P.0.N:PORT. */
  addr: string;
  socket: string;
  dataRoot: string;
  child: ChildProcess;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<TestResponse>;
  docker(args: string[], timeoutMs?: number): Promise<{ stdout: string; stderr: string; code: number }>;
  /** SIGKILL the berthd (and, with `withEtcd`, its etcd member: the whole machine gone). */
  kill(withEtcd?: boolean): Promise<void>;
  /** Starts berthd again on the same data root. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export const exited = (c: ChildProcess): Promise<void> => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

function etcdPid(dataRoot: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataRoot, 'swarm', 'etcd.pid'), 'utf8'));
    process.kill(pid, 0);
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('etcd') ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function killAndWait(pid: number | undefined, sig: NodeJS.Signals): Promise<void> {
  if (!pid) return;
  try {
    process.kill(pid, sig);
  } catch {
    return;
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    // A child of this process (never here: etcd is berthd's) would linger as a zombie; /proc tells.
    try {
      if (/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Address N of this test process: 127.P.0.N, P from the pid (1-254). */
export function swarmIP(n: number): string {
  return `127.${1 + (process.pid % 254)}.0.${n}`;
}

/** Node N of a test: swarmIP(N), cluster port `port` (etcd on port+2 and port+3); `flags`: more berthd flags. */
export async function startSwarmNode(n: number, port: number, flags: string[] = []): Promise<SwarmNode> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `berth-swarm${n}-`));
  const socket = path.join(dir, 'berth.sock');
  const dataRoot = path.join(dir, 'data');
  const namespace = `berth-swarm-${process.pid}-${n}`;
  const bridge = `bsw${process.pid % 10000}n${n}`;
  // a subnet of its own, apart from other test runs' and from any bridge left on this host (as test/helpers/berth.ts)
  const subnet = testBridgeSubnet();
  const ip = swarmIP(n);
  const unrecord = recordTestBerth({ dir, dataRoot, bridge, subnet });
  const args = ['-H', `unix://${socket}`, '--data-root', dataRoot, '--exec-root', path.join(dir, 'exec'), '--containerd', containerdAddress(), '--namespace', namespace, '--bridge-name', bridge, '--bridge-subnet', subnet, '--cgroup-parent', '/' + namespace, '--log-level', process.env.BERTH_SWARM_TEST_LOGS ? 'debug' : 'warn', ...flags];
  /** Spawns berthd (node.child at once, so that close() finds it whatever happens next) and waits for /_ping. */
  const launch = async (): Promise<ChildProcess> => {
    const log = fs.openSync(path.join(dir, 'berthd.log'), 'a');
    const child = spawn(path.join(ROOT, 'bin/berthd'), args, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    node.child = child;
    const t0 = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`berthd ${n} exited ${child.exitCode}: ${fs.readFileSync(path.join(dir, 'berthd.log'), 'utf8').slice(-2000)}`);
      if (await request(socket, 'GET', '/_ping').then((r) => r.status === 200, () => false)) return child;
      if (Date.now() - t0 > 30_000) throw new Error(`berthd ${n} did not answer`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const node: SwarmNode = {
    n,
    ip,
    addr: `${ip}:${port}`,
    socket,
    dataRoot,
    child: undefined as unknown as ChildProcess,
    request: (method, urlPath, o) => request(socket, method, urlPath, o),
    docker: (dargs, timeoutMs = 60_000) =>
      new Promise((resolve) => {
        const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: `unix://${socket}`, DOCKER_CONFIG: path.join(dir, 'docker-config') };
        delete env.DOCKER_API_VERSION;
        execFile('docker', dargs, { env, timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) =>
          resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
        );
      }),
    async kill(withEtcd = false) {
      node.child.kill('SIGKILL');
      await exited(node.child);
      if (withEtcd) await killAndWait(etcdPid(dataRoot), 'SIGKILL');
    },
    async start() {
      await launch();
    },
    async close() {
      if (node.child && node.child.exitCode === null && node.child.signalCode === null) {
        node.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited(node.child), new Promise((r) => (timer = setTimeout(r, 5000)))]);
        clearTimeout(timer);
        node.child.kill('SIGKILL');
        // gone before its etcd is killed: a berthd still running would start its etcd again, into the folder
        // removed below
        await exited(node.child);
      }
      await killAndWait(etcdPid(dataRoot), 'SIGKILL');
      const ctr = new Containerd({ address: containerdAddress(), namespace });
      await cleanupNamespace(ctr).catch(() => undefined);
      ctr.close();
      await new Promise((r) => execFile('ip', ['link', 'delete', bridge], () => r(undefined)));
      await removeRules(bridgeRules(bridge, subnet, false)).catch(() => undefined);
      // BERTH_SWARM_TEST_LOGS=dir keeps each node's berthd and etcd logs there (for a failure to understand)
      const keep = process.env.BERTH_SWARM_TEST_LOGS;
      if (keep) {
        fs.mkdirSync(keep, { recursive: true });
        for (const f of [path.join(dir, 'berthd.log'), path.join(dataRoot, 'swarm', 'etcd.log')]) {
          if (fs.existsSync(f)) fs.copyFileSync(f, path.join(keep, `node${n}-${path.basename(f)}`));
        }
      }
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      unrecord();
    },
  };
  // a node that does not come up is closed here (its berthd, etcd, bridge and folder): the caller never gets it
  try {
    await launch();
  } catch (err) {
    await node.close().catch(() => undefined);
    throw err;
  }
  return node;
}

/** Polls `fn` every 200 ms until `good` holds (errors count as not yet); fails naming `what`, the last value and error. */
export async function until<T>(what: string, fn: () => Promise<T>, good: (v: T) => boolean, timeoutMs: number): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  let last: T | undefined;
  let lastErr: unknown;
  while (Date.now() - t0 < timeoutMs) {
    try {
      last = await fn();
      if (good(last)) return { value: last, ms: Date.now() - t0 };
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms; last ${JSON.stringify(last)} ${lastErr ? String(lastErr) : ''}`);
}

/** The node id a node's /info shows. */
export const swarmNodeId = async (n: SwarmNode): Promise<string> => (await n.request('GET', '/v1.24/info')).json().Swarm.NodeID as string;
