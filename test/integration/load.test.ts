// The load run (issue 19), CI-sized: the real bin/berthd (a process of its own, so its RSS and fds are its own) under
// BERTH_LOAD_CLIENTS clients (default 24) looping create → start → exec → logs → inspect → list → kill → wait → rm for
// BERTH_LOAD_SECONDS (default 20), with two /events subscribers open. No operation fails, the event streams stay
// open, and afterwards nothing is left: no container, containerd container, task, snapshot, lease or FIFO, and the
// daemon's open fds are back where they were. bench/load.ts runs the same loop at 64 and 200 clients for 60 s against
// berth and the reference, with percentiles.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Containerd } from '../../src/containerd/client';
import { containerdAddress, request, testBridgeSubnet } from '../helpers/berth';
import { berthdLauncher } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { listSnapshots } from '../helpers/cleanup';
import { berthInventory, runLoad } from '../helpers/load-run';

const CLIENTS = Number(process.env.BERTH_LOAD_CLIENTS ?? 24);
const SECONDS = Number(process.env.BERTH_LOAD_SECONDS ?? 20);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-load-'));
const socket = path.join(dir, 'b.sock');
const NS = `berth-load-${process.pid}`;
const launcher = berthdLauncher({ dir, namespace: NS, bridge: `bload${process.pid % 10000}`, subnet: testBridgeSubnet() });
const ctr = new Containerd({ address: containerdAddress(), namespace: NS });

afterAll(async () => {
  await launcher.cleanup();
  ctr.close();
}, 120_000);

test(`${CLIENTS} clients for ${SECONDS} s: no error, nothing left behind`, async () => {
  const b = await launcher.berthd(['-H', `unix://${socket}`, '--log-level', 'warn'], { socket });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() })).status).toBe(200);
  const fifoDir = path.join(dir, 'exec', 'fifo');
  let baseSnapshots = 0;
  const target = { name: 'berth' as const, socket, pid: b.child.pid!, inventory: () => berthInventory(ctr, baseSnapshots, fifoDir) };
  // the first container's one-time work (the shared init layer, kept as a snapshot) out of the way
  await runLoad(target, 2, 1, `warm-${process.pid}`);
  baseSnapshots = (await listSnapshots(ctr)).length;
  const r = await runLoad(target, CLIENTS, SECONDS, `${process.pid}`);
  console.log(`load: ${CLIENTS} clients ${SECONDS} s: ${r.iterations} iterations; p50/p99 ms ${Object.entries(r.ms).map(([op, m]) => `${op} ${m.p50}/${m.p99}`).join(', ')}; RSS ${r.daemon.before.rssMB} → peak ${r.daemon.peakRssMB} → ${r.daemon.after.rssMB} MB; fds ${r.daemon.before.fds} → ${r.daemon.after.fds}`);
  expect({ errors: r.errors, firstErrors: r.firstErrors }).toEqual({ errors: {}, firstErrors: [] });
  expect(r.iterations).toBeGreaterThan(CLIENTS);
  expect(r.events.streamsOpenAtEnd).toBe(r.events.subscribers);
  if (r.left.fifos) console.log(`FIFOs left: ${fs.readdirSync(fifoDir).join(' ')}`);
  expect(r.left).toEqual({ containers: 0, containerdContainers: 0, tasks: 0, snapshots: 0, leases: 0, fifos: 0 });
  // the clients' connections are closed before the count; a few fds of lazily opened files may stay (logs, plugins)
  expect(r.daemon.after.fds).toBeLessThanOrEqual(r.daemon.before.fds + 4);
}, 300_000);
