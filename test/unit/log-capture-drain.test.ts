// The capture thread's side (CaptureHost), in-process: a read of the log asked while the container's output is still
// in its FIFO (the reader's turn has not come yet) finds that output in the log, in order with what came before.
import { execFileSync, spawn } from 'node:child_process';
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

test('with reads coalesced, a stream and a line after a gap are logged whole and in order', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-coalesce-'));
  const fifo = path.join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  const fd = openReadFd(fifo);
  const posted: FromCapture[] = [];
  const host = new CaptureHost((m) => posted.push(m), {});
  const log = path.join(dir, 'log.json');
  host.handle({ t: 'open', cid: 1, fds: { stdout: fd }, file: log, state: new SharedArrayBuffer(16) });
  try {
    // 100,000 numbered lines in 4 KiB writes 0.1 ms apart from another process (a sustained stream of short reads:
    // the host sleeps between reads, ~45 times), then a gap and one more line
    const script = `const fs=require('fs');let s='';for(let i=0;i<100000;i++)s+='line '+i+'\\n';const b=Buffer.from(s);for(let o=0;o<b.length;o+=4096){fs.writeSync(1,b,o,Math.min(4096,b.length-o));const t=process.hrtime.bigint();while(process.hrtime.bigint()-t<100000n);}setTimeout(()=>fs.writeSync(1,'last\\n'),100)`;
    const w = fs.openSync(fifo, fs.constants.O_WRONLY);
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', w, 'inherit'] });
    fs.closeSync(w);
    await new Promise((r) => child.on('exit', r));
    for (const t0 = Date.now(); Date.now() - t0 < 10_000 && !posted.some((m) => m.t === 'done'); ) await tick();
    expect(posted.some((m) => m.t === 'done')).toBe(true);
    // (a read that ends within a line is an entry of its own)
    const text = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { log: string }).log)
      .join('');
    expect(text).toBe(Array.from({ length: 100000 }, (_, i) => `line ${i}\n`).join('') + 'last\n');
  } finally {
    host.handle({ t: 'close', cid: 1 });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
