// A worker thread started on first use and ended after a quiet spell (src/runtime/idle-worker.ts): the log reader's
// and the stats reader's.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdleWorker, workerFile } from '../../src/runtime/idle-worker';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-idle-worker-'));
const echo = path.join(dir, 'echo.js');
fs.writeFileSync(
  echo,
  `const { parentPort, threadId } = require('node:worker_threads');
   parentPort.on('message', (m) => (m === 'exit' ? process.exit(3) : parentPort.postMessage({ m, threadId })));`,
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function harness(file: string, idleMs: number) {
  let out = 0;
  const got: { m: string; threadId: number }[] = [];
  const failures: string[] = [];
  let wake: (() => void) | undefined;
  const w: IdleWorker<string, { m: string; threadId: number }> = new IdleWorker('echo thread', file, idleMs, {
    message: (m) => {
      out--;
      got.push(m);
      w.settled();
      wake?.();
    },
    failed: (err) => {
      failures.push(err.message);
      wake?.();
    },
    busy: () => out > 0,
  });
  const send = async (m: string) => {
    out++;
    const next = new Promise<void>((r) => (wake = r));
    w.get()!.postMessage(m);
    await next;
  };
  return { w, got, failures, send };
}

test('started on first use, kept while used, ended after the quiet spell, started again', async () => {
  const { w, got, send } = harness(echo, 100);
  await send('a');
  await send('b');
  expect(got.map((g) => g.m)).toEqual(['a', 'b']);
  expect(got[0].threadId).toBe(got[1].threadId); // one thread for both
  await new Promise((r) => setTimeout(r, 300));
  await send('c');
  expect(got[2].threadId).not.toBe(got[0].threadId); // the first ended when quiet; a new one
  w.close();
});

test('a thread that exits takes its work with it; the next use starts another', async () => {
  const { w, failures, got, send } = harness(echo, 10_000);
  await send('exit');
  expect(failures).toEqual(['echo thread exited (3)']);
  await send('d');
  expect(got.map((g) => g.m)).toEqual(['d']);
  w.close();
});

test('no worker file: undefined (the owner works on the main thread); compiled and test paths', () => {
  const { w } = harness(path.join(dir, 'missing.js'), 100);
  expect([w.available(), w.get()]).toEqual([false, undefined]);
  expect(workerFile('/x/dist/src/services/logs.js', 'logs-worker.js')).toBe('/x/dist/src/services/logs-worker.js');
  expect(workerFile('/x/src/services/logs.ts', 'logs-worker.js')).toBe('/x/dist/src/services/logs-worker.js');
});
