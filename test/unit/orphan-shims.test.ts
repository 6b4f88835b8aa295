// The shims containerd let go of, found in a fake /proc (command lines, working directories, parents).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listShims, orphanShims, reapOrphanShims } from '../../src/containerd/orphan-shims';

const ADDR = '/run/ctd/containerd.sock';
let proc: string;

function processEntry(pid: number, args: string[], cwd: string, ppid = 1): void {
  const d = path.join(proc, String(pid));
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'cmdline'), args.join('\0') + '\0');
  fs.symlinkSync(cwd, path.join(d, 'cwd')); // readlink gives the text as it is, " (deleted)" included
  fs.writeFileSync(path.join(d, 'stat'), `${pid} (${path.basename(args[0])}) S ${ppid} ${pid} ${pid} 0 -1`);
}
const shim = (ns: string, id: string, addr = ADDR) => ['/usr/bin/containerd-shim-runc-v2', '-namespace', ns, '-id', id, '-address', addr];
const bundle = (ns: string, id: string) => `/run/ctd/state/io.containerd.runtime.v2.task/${ns}/${id}`;

beforeEach(() => {
  proc = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-proc-'));
  processEntry(10, shim('berth', 'live'), bundle('berth', 'live'));
  processEntry(11, shim('berth', 'gone'), `${path.dirname(bundle('berth', 'gone'))}/.gone (deleted)`);
  processEntry(12, shim('berth', 'renamed'), `${path.dirname(bundle('berth', 'renamed'))}/.renamed`);
  processEntry(13, shim('berth', 'unlisted'), bundle('berth', 'unlisted'));
  processEntry(14, shim('moby', 'other'), `${path.dirname(bundle('moby', 'other'))}/.other (deleted)`); // another namespace
  processEntry(15, shim('berth', 'elsewhere', '/other/containerd.sock'), '/x/.elsewhere (deleted)'); // another containerd
  processEntry(16, [...shim('berth', 'starting'), 'start'], '/'); // a `shim start` call, not a daemon
  processEntry(17, ['/bin/sleep', '-namespace', 'berth', '-id', 'gone'], '/'); // not a shim
  processEntry(20, ['/bin/sh'], '/', 11); // a process still under the orphan
  fs.mkdirSync(path.join(proc, 'self'));
});
afterEach(() => fs.rmSync(proc, { recursive: true, force: true }));

test('listShims reads the shim daemons, their ids, namespaces, addresses and whether their bundle is gone', async () => {
  const shims = (await listShims(proc)).sort((a, b) => a.pid - b.pid);
  expect(shims.map((s) => [s.pid, s.namespace, s.id, s.bundleGone])).toEqual([
    [10, 'berth', 'live', false],
    [11, 'berth', 'gone', true],
    [12, 'berth', 'renamed', true],
    [13, 'berth', 'unlisted', false],
    [14, 'moby', 'other', true],
    [15, 'berth', 'elsewhere', true],
  ]);
});

test('an orphan is a shim of the namespace on the same containerd whose bundle is gone, or (at start-up) of no task', async () => {
  const shims = await listShims(proc);
  const ids = (o: Parameters<typeof orphanShims>[1]) => orphanShims(shims, o).map((s) => s.id).sort();
  expect(ids({ namespace: 'berth', address: ADDR })).toEqual(['gone', 'renamed']);
  expect(ids({ namespace: 'berth', address: `unix://${ADDR}` })).toEqual(['gone', 'renamed']);
  expect(ids({ namespace: 'berth', address: ADDR, taskIds: new Set(['live']) })).toEqual(['gone', 'renamed', 'unlisted']);
  expect(ids({ namespace: 'berth', address: ADDR, taskIds: new Set(['live', 'unlisted']) })).toEqual(['gone', 'renamed']);
  expect(ids({ namespace: 'nothing', address: ADDR })).toEqual([]);
});

test('reapOrphanShims kills each orphan and what still runs under it, nothing else', async () => {
  const killed: number[] = [];
  const reaped = await reapOrphanShims({ namespace: 'berth', address: ADDR, taskIds: new Set(['live']), procRoot: proc, kill: (pid) => killed.push(pid) });
  expect(reaped.map((s) => s.pid).sort()).toEqual([11, 12, 13]);
  expect(killed.sort((a, b) => a - b)).toEqual([11, 12, 13, 20]);
  // the child goes before its shim
  const order: number[] = [];
  await reapOrphanShims({ namespace: 'berth', address: ADDR, procRoot: proc, kill: (pid) => order.push(pid) });
  expect(order.indexOf(20)).toBeLessThan(order.indexOf(11));
});
