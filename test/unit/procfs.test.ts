// The /proc walker (src/containerd/procfs.ts) over a fake /proc: command lines, parents, processes gone meanwhile.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childrenOf, eachProcess, parentOf, pidsWithArg, PROC_READ_BYTES } from '../../src/containerd/procfs';

let proc: string;

function entry(pid: number, args: string[], ppid: number): void {
  const d = path.join(proc, String(pid));
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'cmdline'), args.join('\0') + '\0');
  fs.writeFileSync(path.join(d, 'stat'), `${pid} (${path.basename(args[0])}) S ${ppid} ${pid} ${pid} 0 -1`);
}

beforeEach(() => {
  proc = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-proc-'));
  entry(1, ['/sbin/init'], 0);
  entry(100, ['containerd', '--config', '/tmp/run-a/config.toml'], 1);
  entry(101, ['containerd', '--config', '/tmp/run-b/config.toml'], 1);
  entry(200, ['/usr/bin/containerd-shim-runc-v2', '-namespace', 'x', '-id', 'c1'], 1);
  entry(201, ['sleep', '1000'], 200);
  entry(202, ['a weird (name) here', 'x'], 200);
  for (let i = 0; i < 40; i++) entry(1000 + i, ['sh', '-c', 'x'.repeat(i * 97)], 100 + (i % 2)); // more processes than readers
  fs.mkdirSync(path.join(proc, '300')); // a process that went meanwhile: no files left
  fs.mkdirSync(path.join(proc, 'self'));
});
afterEach(() => fs.rmSync(proc, { recursive: true, force: true }));

test('parentOf reads the parent after the command name, whatever it holds', () => {
  expect(parentOf('202 (a weird (name) here) S 200 202 202 0 -1')).toBe(200);
});

test('childrenOf and pidsWithArg walk every process, each file read whole into the reused buffers', async () => {
  expect((await childrenOf(200, proc)).sort((a, b) => a - b)).toEqual([201, 202]);
  expect((await childrenOf(100, proc)).length).toBe(20);
  expect(await pidsWithArg('/tmp/run-a/config.toml', proc)).toEqual([100]);
  expect(await pidsWithArg('/tmp/run', proc)).toEqual([]);
  // every command line read as it is (no bytes of another process's read left in a reused buffer)
  const lines = await eachProcess(async (p) => [p.pid, (await p.read('cmdline')).split('\0')[2]] as const, proc);
  for (const [pid, third] of lines) if (pid >= 1000) expect(third).toBe('x'.repeat((pid - 1000) * 97));
  expect(lines.length).toBe(46); // 300 (gone) and self left out
});

test('a file is read up to PROC_READ_BYTES; a process whose files cannot be read counts as nothing', async () => {
  entry(400, ['long', 'y'.repeat(PROC_READ_BYTES * 2)], 1);
  const got = await eachProcess(async (p) => (p.pid === 400 || p.pid === 300 ? (await p.read('cmdline')).length : undefined), proc);
  expect(got).toEqual([PROC_READ_BYTES]);
  expect(await eachProcess(async () => 1, path.join(proc, 'nowhere'))).toEqual([]);
});
