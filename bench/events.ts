// Events benchmark (a script, not a test), in one run against a private containerd:
// - exit → die: from a task's exit (containerd's /tasks/exit exited_at) to a GET /events subscriber receiving `die`;
// - stop → die: from sending POST /containers/(id)/stop to the subscriber receiving `die`;
// - the cost of 100 concurrent /events subscribers on create → start → wait → rm throughput.
// Run: npm run bench:events [runs]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULTS } from '../src/config';
import { startDaemon } from '../src/daemon';
import { silentLogger } from '../src/log';
import { fromProtoTime } from '../src/translate/time';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { removeScratch } from './scratch';

/** A child process holding N /events subscriptions; prints "ready", and on SIGTERM the events it received. */
const SUBSCRIBERS = `
const http = require('node:http');
const [socket, n] = process.argv.slice(1);
let open = 0, received = 0;
for (let i = 0; i < Number(n); i++) {
  const req = http.request({ socketPath: socket, path: '/v1.24/events', agent: false }, (res) => {
    res.on('data', (c) => { received += c.toString().split('\\n').length - 1; });
    if (++open === Number(n)) process.stdout.write('ready\\n');
  });
  req.on('error', () => {});
  req.end();
}
process.on('SIGTERM', () => { process.stdout.write('received ' + received + '\\n', () => process.exit(0)); });
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const nowNs = () => BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);

/** A /events subscriber calling `fn` with each event and the wall-clock time (ns) it arrived. */
function subscribe(socket: string, fn: (e: Record<string, any>, at: bigint) => void): Promise<http.ClientRequest> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath: socket, path: '/v1.24/events', agent: false }, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        const at = nowNs();
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line) fn(JSON.parse(line), at);
        }
      });
      resolve(req);
    });
    req.on('error', () => undefined);
    req.end();
  });
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 20);
  const ctd = await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-ev-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-ev-${process.pid}`;
  const daemon = await startDaemon({ ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: ctd.address, namespace: ns, cgroupParent: `/${ns}`, bridgeName: 'bbev0', bridgeSubnet: '10.253.251.0/24' }, silentLogger());
  const ctr = daemon.ctr;
  const subs: http.ClientRequest[] = [];
  try {
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    // containerd's own exit timestamps
    const exitedAt = new Map<string, bigint>();
    const eventAt = new Map<string, bigint>();
    const stream = ctr.raw.events.Subscribe({ filters: [`namespace==${ns},topic=="/tasks/exit"`] }, ctr.metadata());
    stream.on('data', (env: { event: { type_url: string; value: Buffer } }) => {
      const ev = ctr.any.unpack<{ container_id: string; id: string; exited_at: unknown }>(env.event);
      if (ev && ev.container_id === ev.id) {
        const t = fromProtoTime(ev.exited_at as never);
        exitedAt.set(ev.container_id, BigInt(t.seconds) * 1_000_000_000n + BigInt(t.nanos));
        eventAt.set(ev.container_id, nowNs());
      }
    });
    stream.on('error', () => undefined);
    const dieAt = new Map<string, bigint>();
    const waiters = new Map<string, () => void>();
    subs.push(
      await subscribe(socket, (e, at) => {
        if (e.Action === 'die') {
          dieAt.set(e.Actor.ID, at);
          waiters.get(e.Actor.ID)?.();
        }
      }),
    );
    const dieOf = (id: string) => new Promise<void>((r) => (dieAt.has(id) ? r() : waiters.set(id, r)));
    const create = async (cmd: string[]) => (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: cmd, HostConfig: { NetworkMode: 'none' } } })).json().Id as string;

    // exit → die
    const exitToDie: number[] = [];
    // for reference: the same exit reaching a raw containerd event subscriber
    const exitToEvent: number[] = [];
    for (let i = 0; i < runs; i++) {
      const id = await create(['/bin/busybox', 'true']);
      await request(socket, 'POST', `/v1.24/containers/${id}/start`);
      await dieOf(id);
      for (let k = 0; k < 50 && !exitedAt.has(id); k++) await new Promise((r) => setTimeout(r, 10));
      const ex = exitedAt.get(id);
      if (ex) exitToDie.push(Number(dieAt.get(id)! - ex) / 1e6);
      const evAt = eventAt.get(id);
      if (ex && evAt) exitToEvent.push(Number(evAt - ex) / 1e6);
      await request(socket, 'DELETE', `/v1.24/containers/${id}`);
    }
    // stop → die
    const stopToDie: number[] = [];
    for (let i = 0; i < runs; i++) {
      const id = await create(['/bin/sh', '-c', 'trap "exit 0" TERM; sleep 300 & wait']);
      await request(socket, 'POST', `/v1.24/containers/${id}/start`);
      const t0 = nowNs();
      const stopped = request(socket, 'POST', `/v1.24/containers/${id}/stop?t=5`);
      await dieOf(id);
      stopToDie.push(Number(dieAt.get(id)! - t0) / 1e6);
      await stopped;
      await request(socket, 'DELETE', `/v1.24/containers/${id}`);
    }
    // throughput with 1 and with 100 subscribers, interleaved batches
    const lifecycle = async () => {
      const t0 = process.hrtime.bigint();
      const id = await create(['/bin/busybox', 'true']);
      await request(socket, 'POST', `/v1.24/containers/${id}/start`);
      await request(socket, 'POST', `/v1.24/containers/${id}/wait`);
      await request(socket, 'DELETE', `/v1.24/containers/${id}`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const few: number[] = [];
    const many: number[] = [];
    let received = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < runs / 2; i++) few.push(await lifecycle());
      // the 100 subscribers are another process, as real clients are (not berth's own event loop)
      const child = spawn(process.execPath, ['-e', SUBSCRIBERS, socket, '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      await new Promise<void>((r) => child.stdout.on('data', (c: Buffer) => ((out += c.toString()), out.includes('ready') && r())));
      for (let i = 0; i < runs / 2; i++) many.push(await lifecycle());
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      received += Number(/received (\d+)/.exec(out)?.[1] ?? 0);
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(
      JSON.stringify(
        {
          runs,
          exitToDieMs: { median: +median(exitToDie).toFixed(2), max: +Math.max(...exitToDie).toFixed(2), samples: exitToDie.length },
          exitToContainerdEventMs: { median: +median(exitToEvent).toFixed(2) },
          stopToDieMs: { median: +median(stopToDie).toFixed(2), max: +Math.max(...stopToDie).toFixed(2) },
          lifecycleMs: { oneSubscriber: +median(few).toFixed(1), hundredSubscribers: +median(many).toFixed(1) },
          hundredSubscribersSlowdown: +(median(many) / median(few)).toFixed(3),
          eventsDeliveredToTheHundred: received,
          goals: { exitToDieMedianMs: '< 5', hundredSubscribersSlowdown: '<= 1.10' },
        },
        null,
        2,
      ),
    );
    stream.cancel();
  } finally {
    for (const s of subs) s.destroy();
    await daemon.close();
    await cleanupNamespace(ctr.withNamespace(ns));
    // (its default bridge and the bridge's NAT rules too: a bench leaves nothing on the host)
    await removeScratch({ ctdPid: ctd.pid, bridges: [{ name: 'bbev0', subnet: '10.253.251.0/24' }], dir });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
