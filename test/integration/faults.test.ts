// Faults (issue 19): the real berthd (bin/berthd) SIGKILLed while creates, starts, rm -f, pulls, commits and a
// `logs -f` are in flight, three rounds at different moments. After each restart: nothing that was answered as done
// is lost (created containers exist, started ones still run, committed and pulled images are there, the log goes
// on), and nothing is orphaned in containerd (every containerd container and active snapshot belongs to a container
// berth lists, no lease of an interrupted operation is left). At the end everything can be removed and the
// namespace holds no container, task, active snapshot or lease. (A container exiting while berth's containerd
// restarts: containerd-restart.test.ts; a build killed mid-RUN: berthd.test.ts; plugins: plugins-sigkill.test.ts.)
// Needs `npm run build` first (scripts/test.sh builds before testing).
import { execFile, type ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdAddress, request, testBridgeSubnet } from '../helpers/berth';
import { berthdLauncher, exited } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { cleanupNamespace, listSnapshots } from '../helpers/cleanup';
import { startRegistry, type TestRegistry } from '../helpers/registry';
import { Containerd } from '../../src/containerd/client';
import { bridgeRules, removeRules } from '../../src/network/bridge';
import { netnsName } from '../../src/network/sandbox';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bft-'));
const socket = path.join(dir, 'berth.sock');
const namespace = `berth-faults-${process.pid}`;
const bridge = `bft${crypto.randomBytes(3).toString('hex')}`;
const subnet = testBridgeSubnet();
const launcher = berthdLauncher({ dir, namespace, bridge, subnet });
const start = async (): Promise<ChildProcess> => (await launcher.berthd(['-H', `unix://${socket}`, '--log-level', 'error'], { socket })).child;
const api = (method: string, p: string, body?: unknown) => request(socket, method, p, body === undefined ? {} : { body });
let reg: TestRegistry;
let ctr: Containerd;
let d: ChildProcess | undefined;

beforeAll(async () => {
  reg = await startRegistry();
  ctr = new Containerd({ address: containerdAddress(), namespace });
}, 30_000);
afterAll(async () => {
  if (d && d.exitCode === null && d.signalCode === null) {
    d.kill('SIGTERM');
    await exited(d);
  }
  await cleanupNamespace(ctr);
  ctr.close();
  await reg.close();
  // the bridge berthd made and its rules (each run left them behind before)
  await new Promise((r) => execFile('ip', ['link', 'delete', bridge], () => r(undefined)));
  await removeRules(bridgeRules(bridge, subnet, false)).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
  // no cgroup of the namespace is left (runc's container cgroups go with their tasks, the parent with the clean-up;
  // a shim containerd had let go of kept a container's cgroup busy)
  expect(fs.readdirSync('/sys/fs/cgroup').filter((h) => fs.existsSync(path.join('/sys/fs/cgroup', h, namespace)))).toEqual([]);
  // jest's default 5 s cut the clean-up short on a loaded machine: the namespace's shims, the bridge and its rules
  // were left behind (three shims of berth-faults-* found running this session)
}, 120_000);

/** The processes whose command line names this test's namespace: containerd's shims of it. */
function namespaceProcesses(): string[] {
  const out: string[] = [];
  for (const p of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const args = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      const i = args.indexOf('-namespace');
      if (i >= 0 && args[i + 1] === namespace) out.push(`${p} ${args.join(' ').trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Active and view snapshots (a container's rw layer; a commit's or a build's temporary view). */
function activeSnapshots(): Promise<string[]> {
  return new Promise((resolve) => {
    const out: string[] = [];
    const call = ctr.raw.snapshots.List({ snapshotter: 'overlayfs', filters: [] }, ctr.metadata());
    call.on('data', (m: { info: { name: string; kind: string | number }[] }) => out.push(...m.info.filter((i) => ['ACTIVE', 'VIEW', 1, 2].includes(i.kind)).map((i) => i.name)));
    call.on('error', () => resolve(out));
    call.on('end', () => resolve(out));
  });
}

/** What the clients were told was done; an operation cut by the kill counts as neither done nor undone. */
interface Ledger {
  created: Set<string>;
  started: Set<string>;
  removed: Set<string>;
  /** id → in flight (a start or remove that got no answer) */
  uncertain: Set<string>;
  committed: Set<string>;
  pulled: boolean | undefined;
  pulls: number;
}

async function workload(ledger: Ledger, round: number, stop: { now: boolean }): Promise<void> {
  const pullRef = `${reg.host}/faults/pulled:1`;
  const creator = async (w: number) => {
    for (let n = 0; !stop.now; n++) {
      const r = await api('POST', `/v1.24/containers/create?name=f${round}-${w}-${n}`, { Image: 'busybox', Cmd: ['sleep', '1000'], HostConfig: { NetworkMode: w === 0 ? 'bridge' : 'none' } }).catch(() => undefined);
      if (!r) return;
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      const id = r.json().Id as string;
      ledger.created.add(id);
      if (n % 2 === 0) continue;
      ledger.uncertain.add(id);
      const s = await api('POST', `/v1.24/containers/${id}/start`).catch(() => undefined);
      if (!s) return;
      if (s.status !== 204) throw new Error(`start: ${s.status} ${s.text}`);
      ledger.uncertain.delete(id);
      ledger.started.add(id);
    }
  };
  const remover = async () => {
    while (!stop.now) {
      const id = [...ledger.started].find((i) => !ledger.removed.has(i) && !ledger.uncertain.has(i));
      if (!id) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      ledger.uncertain.add(id);
      const r = await api('DELETE', `/v1.24/containers/${id}?force=1`).catch(() => undefined);
      if (!r) return;
      if (r.status !== 204) throw new Error(`rm -f: ${r.status} ${r.text}`);
      ledger.uncertain.delete(id);
      ledger.removed.add(id);
    }
  };
  const committer = async () => {
    for (let n = 0; !stop.now; n++) {
      const id = [...ledger.created].find((i) => !ledger.started.has(i) && !ledger.uncertain.has(i));
      if (!id) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const tag = `r${round}n${n}`;
      const r = await api('POST', `/v1.24/commit?container=${id}&repo=faults-commit&tag=${tag}`, {}).catch(() => undefined);
      if (!r) return;
      if (r.status !== 201) throw new Error(`commit: ${r.status} ${r.text}`);
      ledger.committed.add(`faults-commit:${tag}`);
    }
  };
  const puller = async () => {
    while (!stop.now) {
      ledger.pulled = undefined;
      const r = await api('POST', `/v1.24/images/create?fromImage=${encodeURIComponent(pullRef)}`).catch(() => undefined);
      if (!r) return;
      if (r.status !== 200 || r.text.includes('"error"')) throw new Error(`pull: ${r.status} ${r.text}`);
      ledger.pulled = true;
      ledger.pulls++;
      if (stop.now) return;
      ledger.pulled = undefined;
      const rm = await api('DELETE', `/v1.24/images/${pullRef}`).catch(() => undefined);
      if (!rm) return;
      if (rm.status !== 200) throw new Error(`rmi: ${rm.status} ${rm.text}`);
      ledger.pulled = false;
    }
  };
  await Promise.all([creator(0), creator(1), creator(2), remover(), committer(), puller()]);
}

/** A `logs -f` reader: the lines it got before its connection was cut. */
function follow(id: string): { lines: () => number } {
  let text = '';
  const req = http.request({ socketPath: socket, method: 'GET', path: `/v1.24/containers/${id}/logs?stdout=1&follow=1` }, (res) => {
    res.on('data', (c: Buffer) => (text += c.toString('latin1')));
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { lines: () => (text.match(/tick/g) ?? []).length };
}

const logLines = async (id: string) => ((await api('GET', `/v1.24/containers/${id}/logs?stdout=1`)).text.match(/tick/g) ?? []).length;

test('SIGKILL amid creates, starts, rm -f, pulls, commits and logs -f: nothing lost, nothing orphaned', async () => {
  d = await start();
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
  // the image the pulls fetch: 4 MB of its own, so a pull is in flight long enough to be cut
  const src = await buildBusyboxImage({ tags: [`${reg.host}/faults/pulled:1`], extraFiles: { '/blob': crypto.randomBytes(4 << 20) } });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: src })).status).toBe(200);
  const pushed = await request(socket, 'POST', `/v1.24/images/${reg.host}/faults/pulled/push?tag=1`, { headers: { 'X-Registry-Auth': 'e30=' } });
  expect([pushed.status, pushed.text]).toEqual([200, expect.stringContaining('digest: sha256:')]);
  expect((await api('DELETE', `/v1.24/images/${reg.host}/faults/pulled:1`)).status).toBe(200);
  const ticker = (await api('POST', '/v1.24/containers/create?name=ticker', { Image: 'busybox', Cmd: ['sh', '-c', 'while true; do echo tick; sleep 0.05; done'], HostConfig: { NetworkMode: 'none' } })).json().Id;
  expect((await api('POST', `/v1.24/containers/${ticker}/start`)).status).toBe(204);

  const ledger: Ledger = { created: new Set(), started: new Set(), removed: new Set(), uncertain: new Set(), committed: new Set(), pulled: undefined, pulls: 0 };
  const rand = (() => {
    let s = 7;
    return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  })();
  for (let round = 0; round < 3; round++) {
    const follower = follow(ticker);
    const stop = { now: false };
    const work = workload(ledger, round, stop);
    // the kill falls at a random moment once every kind of operation is under way (a slow, loaded machine included)
    const [created, started, committed, pulls] = [ledger.created.size, ledger.started.size, ledger.committed.size, ledger.pulls];
    for (let i = 0; i < 600 && !(ledger.created.size >= created + 3 && ledger.started.size > started && ledger.committed.size > committed && ledger.pulls > pulls); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, rand() * 1500));
    d.kill('SIGKILL');
    await exited(d);
    stop.now = true;
    await work;
    const followed = follower.lines();
    d = await start();

    // nothing lost
    const listed = new Map<string, { State: string }>(((await api('GET', '/v1.24/containers/json?all=1')).json() as { Id: string; State: string }[]).map((c) => [c.Id, c]));
    for (const id of ledger.created) if (!ledger.removed.has(id) && !ledger.uncertain.has(id)) expect([round, id, listed.has(id)]).toEqual([round, id, true]);
    for (const id of ledger.started) if (!ledger.removed.has(id) && !ledger.uncertain.has(id)) expect([round, id, listed.get(id)?.State]).toEqual([round, id, 'running']);
    for (const id of ledger.removed) expect([round, id, listed.has(id)]).toEqual([round, id, false]);
    for (const tag of ledger.committed) expect([round, tag, (await api('GET', `/v1.24/images/${tag}/json`)).status]).toEqual([round, tag, 200]);
    if (ledger.pulled !== undefined) expect([round, (await api('GET', `/v1.24/images/${reg.host}/faults/pulled:1/json`)).status]).toEqual([round, ledger.pulled ? 200 : 404]);
    // the log went on while berth was down and goes on after: everything the follower saw is in it, and more comes
    const before = await logLines(ticker);
    expect(before).toBeGreaterThanOrEqual(followed);
    for (let i = 0; i < 100 && (await logLines(ticker)) <= before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await logLines(ticker)).toBeGreaterThan(before);

    // nothing orphaned: containerd holds only what berth lists (the uncertain ones either way, but nothing else)
    const ids = new Set([...listed.keys()]);
    const ctrIds = (await ctr.containers.List({ filters: [] })).containers.map((c) => c.id);
    expect([round, ctrIds.filter((id) => !ids.has(id))]).toEqual([round, []]);
    expect([round, [...ids].filter((id) => !ctrIds.includes(id))]).toEqual([round, []]);
    const tasks = (await ctr.tasks.List({ filter: '' })).tasks.map((t) => t.id);
    expect([round, tasks.filter((id) => !ids.has(id))]).toEqual([round, []]);
    expect([round, (await activeSnapshots()).filter((k) => !ids.has(k))]).toEqual([round, []]);
    expect([round, (await ctr.leases.List({ filters: [] })).leases.map((l) => l.id)]).toEqual([round, []]);
    // every container berth lists can be inspected
    for (const id of ids) expect([id, (await api('GET', `/v1.24/containers/${id}/json`)).status]).toEqual([id, 200]);
  }
  expect(ledger.created.size).toBeGreaterThanOrEqual(9);
  expect(ledger.started.size).toBeGreaterThanOrEqual(3);
  expect(ledger.committed.size).toBeGreaterThanOrEqual(3);
  expect(ledger.pulls).toBeGreaterThanOrEqual(3);
  console.log(`faults: 3 kills; clients were told of ${ledger.created.size} creates, ${ledger.started.size} starts, ${ledger.removed.size} removals, ${ledger.committed.size} commits, ${ledger.pulls} pulls`);

  // everything can be removed; then the namespace holds nothing of berth's but images
  for (const c of (await api('GET', '/v1.24/containers/json?all=1')).json() as { Id: string }[]) {
    const before = (await listSnapshots(ctr)).filter((x) => x.parent.startsWith(c.Id) || x.name.startsWith(c.Id));
    const r = await api('DELETE', `/v1.24/containers/${c.Id}?force=1`);
    const children = r.status === 204 ? [] : [before, (await listSnapshots(ctr)).filter((x) => x.parent.startsWith(c.Id) || x.name.startsWith(c.Id))];
    expect([c.Id, r.status, r.text, children]).toEqual([c.Id, 204, '', []]);
  }
  for (const tag of ledger.committed) expect((await api('DELETE', `/v1.24/images/${tag}`)).status).toBe(200);
  expect((await ctr.containers.List({ filters: [] })).containers).toEqual([]);
  expect((await ctr.tasks.List({ filter: '' })).tasks).toEqual([]);
  expect(await activeSnapshots()).toEqual([]);
  expect((await ctr.leases.List({ filters: [] })).leases).toEqual([]);
  // and the bridge still serves a new container
  const probe = (await api('POST', '/v1.24/containers/create', { Image: 'busybox', Cmd: ['true'] })).json().Id;
  expect((await api('POST', `/v1.24/containers/${probe}/start`)).status).toBe(204);
  expect((await api('POST', `/v1.24/containers/${probe}/wait`)).json().StatusCode).toBe(0);
  expect((await api('DELETE', `/v1.24/containers/${probe}`)).status).toBe(204);

  // Nothing of the namespace runs, is mounted or keeps a network namespace. A task Create cut by a kill left its shim
  // running for ever (containerd forgets a shim that does not delete its task within 5 s, and a shim still opening
  // the stdout FIFO of a dead berthd does not): berthd kills those at its start and in sweeps 15 s and 60 s later,
  // so the last restart's may take until then to go. Four were found after a CI run before.
  for (let i = 0; i < 100 && namespaceProcesses().length; i++) await new Promise((r) => setTimeout(r, 250));
  expect(namespaceProcesses()).toEqual([]);
  expect(fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(`/${namespace}/`))).toEqual([]);
  const netns = fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns') : [];
  expect([...ledger.created, probe].map(netnsName).filter((n) => netns.includes(n))).toEqual([]);
}, 240_000);
