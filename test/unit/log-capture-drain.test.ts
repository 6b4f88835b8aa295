// The capture thread's side (CaptureHost), in-process: a read of the log asked while the container's output is still
// in its FIFO (the reader's turn has not come yet) finds that output in the log, in order with what came before.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CaptureHost, FromCapture } from '../../src/services/log-capture';
import { openReadFd } from '../../src/runtime/fifo';
import { readLogs } from '../../src/runtime/logread';
import type { LogSource } from '../../src/runtime/logfiles';

const tick = () => new Promise((r) => setImmediate(r));

test('openLog reads what the FIFO holds before answering', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-drain-'));
  const fifo = path.join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  const fd = openReadFd(fifo);
  const writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  const posted: FromCapture[] = [];
  const host = new CaptureHost((m) => posted.push(m));
  host.handle({ t: 'open', cid: 1, fds: { stdout: fd }, file: path.join(dir, 'log.json'), state: new SharedArrayBuffer(16) });
  try {
    fs.writeSync(writer, 'first\n');
    // the reader's own turn
    for (let i = 0; i < 20 && !fs.statSync(path.join(dir, 'log.json')).size; i++) await tick();
    // then output the reader has had no turn for: the read is asked in the same tick
    fs.writeSync(writer, 'second\nthird\n');
    host.handle({ t: 'openLog', cid: 1, rid: 1 });
    const answer = posted.find((m) => m.t === 'log') as Extract<FromCapture, { t: 'log' }>;
    const lines: string[] = [];
    await readLogs(answer.src as LogSource, { stdout: true, stderr: true }, (e) => void lines.push(e.log));
    expect(lines).toEqual(['first\n', 'second\n', 'third\n']);
  } finally {
    fs.closeSync(writer);
    for (let i = 0; i < 50 && !posted.some((m) => m.t === 'done'); i++) await tick();
    host.handle({ t: 'close', cid: 1 });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
