// Node certificate renewal (docs/swarm.md "Node certificates"): a swarm whose CAConfig.NodeCertExpiry is 5 s (the
// berthds started with --swarm-min-cert-expiry 4, the reference's minimum being 1 h) renews every node's certificate
// in the second half of its life, a manager's by its own CA, a worker's at a manager's cluster endpoint; long after
// the first certificates expired, both nodes are up, and a restarted worker reconnects to the manager's etcd (whose
// server certificate is renewed too) with its current certificate.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSwarmNode, SwarmNode } from '../helpers/swarm-node';

const PORT = 23740;
let a: SwarmNode;
let b: SwarmNode;

beforeAll(async () => {
  const flags = ['--swarm-min-cert-expiry', '4'];
  [a, b] = await Promise.all([startSwarmNode(61, PORT, flags), startSwarmNode(62, PORT, flags)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((n) => n.close()));
}, 60_000);

const certOf = (n: SwarmNode) => new crypto.X509Certificate(fs.readFileSync(path.join(n.dataRoot, 'swarm', 'certs', 'node.crt')));
const lifetimeMs = (x: crypto.X509Certificate) => Date.parse(x.validTo) - Date.parse(x.validFrom);
const ok = (r: { code: number; stderr: string }) => expect([r.code, r.stderr]).toEqual([0, '']);
const ids: Record<string, string> = {};

async function statuses(): Promise<Record<string, string>> {
  const r = await a.docker(['node', 'ls', '--format', '{{.ID}} {{.Status}}']);
  if (r.code !== 0) throw new Error(r.stderr);
  return Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(' ')));
}

test('NodeCertExpiry: below the minimum refused as the reference words it; the certificates last it', async () => {
  ok(await a.docker(['swarm', 'init', '--advertise-addr', a.ip, '--listen-addr', a.addr, '--cert-expiry', '5s', '--dispatcher-heartbeat', '2s']));
  const cur = (await a.request('GET', '/v1.24/swarm')).json();
  const short = await a.request('POST', `/v1.24/swarm/update?version=${cur.Version.Index}`, { body: { ...cur.Spec, CAConfig: { NodeCertExpiry: 3e9 } } });
  expect([short.status, short.json()]).toEqual([400, { message: 'rpc error: code = InvalidArgument desc = minimum certificate expiry time is: 4s' }]);
  const token = (await a.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  ok(await b.docker(['swarm', 'join', '--token', token, '--advertise-addr', b.ip, '--listen-addr', b.addr, a.addr]));
  ids.a = (await a.request('GET', '/v1.24/info')).json().Swarm.NodeID;
  ids.b = (await b.request('GET', '/v1.24/info')).json().Swarm.NodeID;
  for (const n of [a, b]) expect(lifetimeMs(certOf(n))).toBe(5000);
});

test('both certificates are renewed before they expire; long after the first ones expired, both nodes are up', async () => {
  const first = { a: certOf(a).serialNumber, b: certOf(b).serialNumber };
  const seen = { a: new Set([first.a]), b: new Set([first.b]) };
  const t0 = Date.now();
  while (Date.now() - t0 < 12_000) {
    for (const [k, n] of [['a', a], ['b', b]] as const) {
      const x = certOf(n);
      seen[k].add(x.serialNumber);
      // never past its end: renewed in the second half of its life
      expect(Date.parse(x.validTo)).toBeGreaterThan(Date.now() - 1000);
      expect(x.subject).toContain(`CN=${ids[k]}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(seen.a.size).toBeGreaterThanOrEqual(3);
  expect(seen.b.size).toBeGreaterThanOrEqual(3);
  expect(certOf(b).subject).toContain('OU=swarm-worker');
  expect(await statuses()).toEqual({ [ids.a]: 'Ready', [ids.b]: 'Ready' });
});

test('a worker restarted long after its first certificate expired reconnects with its current one', async () => {
  // A 5 s certificate may lapse while its node restarts on a loaded machine (a node whose certificate expired must
  // join again, as swarmkit's): the expiry goes up to 60 s first, and B's next renewal carries it. B's first
  // certificates expired long ago; it comes back with its current one.
  const cur = (await a.request('GET', '/v1.24/swarm')).json();
  const up = await a.request('POST', `/v1.24/swarm/update?version=${cur.Version.Index}`, { body: { ...cur.Spec, CAConfig: { NodeCertExpiry: 60e9 } } });
  expect(up.status).toBe(200);
  const t1 = Date.now();
  while (lifetimeMs(certOf(b)) !== 60_000 || lifetimeMs(certOf(a)) !== 60_000) {
    if (Date.now() - t1 > 15_000) throw new Error(`not renewed with the new expiry: ${lifetimeMs(certOf(a))} ${lifetimeMs(certOf(b))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await b.kill();
  await new Promise((r) => setTimeout(r, 1000));
  await b.start();
  const t0 = Date.now();
  // a new heartbeat lease needs a new TLS connection to A's etcd: both sides' certificates must be current
  for (;;) {
    const info = (await b.request('GET', '/v1.24/info')).json().Swarm;
    if (info.LocalNodeState === 'active' && info.Error === '' && info.RemoteManagers?.length === 1) break;
    if (Date.now() - t0 > 10_000) throw new Error(`B not back: ${JSON.stringify(info)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await statuses()).toEqual({ [ids.a]: 'Ready', [ids.b]: 'Ready' });
  ok(await b.docker(['swarm', 'leave']));
  ok(await a.docker(['swarm', 'leave', '--force']));
});
