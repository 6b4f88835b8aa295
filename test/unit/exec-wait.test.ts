// A start waits until runc's init has exec'd the container's command (runtime/exec-wait): read from /proc/PID/comm.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execDone, stillRuncInit } from '../../src/runtime/exec-wait';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-proc-'));
const comm = (pid: number, name: string) => {
  fs.mkdirSync(path.join(root, String(pid)), { recursive: true });
  fs.writeFileSync(path.join(root, String(pid), 'comm'), `${name}\n`);
};
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

test('runc init until it execs; a gone process is not waited for', () => {
  comm(10, 'runc:[2:INIT]');
  comm(11, 'sleep');
  expect(stillRuncInit(10, root)).toBe(true);
  expect(stillRuncInit(11, root)).toBe(false);
  expect(stillRuncInit(12, root)).toBe(false);
});

test('execDone resolves once the name changes, and gives up after its time', async () => {
  comm(20, 'runc:[2:INIT]');
  const t0 = Date.now();
  setTimeout(() => comm(20, 'busybox'), 30);
  await execDone(20, 1000, root);
  expect(Date.now() - t0).toBeLessThan(500);
  comm(21, 'runc:[2:INIT]');
  const t1 = Date.now();
  await execDone(21, 50, root);
  expect(Date.now() - t1).toBeGreaterThanOrEqual(45);
});
