// Reading a container's json-file log: tail N lines from the end without reading the whole file, since/until
// filters, and follow by reading what is appended until the container stops.
import * as fs from 'node:fs';
import type { StreamName } from '../runtime/io';

export interface LogEntry {
  stream: StreamName;
  log: string;
  time: string;
  attrs?: Record<string, string>;
}

export interface LogReadOptions {
  stdout: boolean;
  stderr: boolean;
  sinceNs?: bigint;
  tail?: number; // undefined = all
}

function timeNs(t: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(t);
  if (!m) return 0n;
  return BigInt(Date.parse(m[1] + 'Z')) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

function parse(line: string): LogEntry | undefined {
  try {
    const e = JSON.parse(line) as LogEntry;
    return typeof e.log === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

/** Byte offset where the last `n` lines of the file start. */
async function tailOffset(fd: fs.promises.FileHandle, size: number, n: number): Promise<number> {
  if (n <= 0) return size;
  const chunk = 64 * 1024;
  let pos = size;
  let newlines = 0;
  const buf = Buffer.alloc(chunk);
  while (pos > 0) {
    const len = Math.min(chunk, pos);
    pos -= len;
    await fd.read(buf, 0, len, pos);
    for (let i = len - 1; i >= 0; i--) {
      if (buf[i] === 0x0a) {
        if (pos + i === size - 1) continue; // the file's final newline
        if (++newlines === n) return pos + i + 1;
      }
    }
  }
  return 0;
}

function wanted(e: LogEntry, o: LogReadOptions): boolean {
  if (e.stream === 'stdout' ? !o.stdout : !o.stderr) return false;
  if (o.sinceNs !== undefined && timeNs(e.time) < o.sinceNs) return false;
  return true;
}

/**
 * Emits the entries of `file` (from the tail offset), then, with `follow`, whatever is appended until `stopped`
 * resolves (plus a final read). Returns when done or when `aborted` is set.
 */
export async function readLogs(file: string, o: LogReadOptions, emit: (e: LogEntry) => void | Promise<void>, follow?: { stopped: Promise<void>; signal: AbortSignal }): Promise<void> {
  let fd: fs.promises.FileHandle;
  try {
    fd = await fs.promises.open(file, 'r');
  } catch {
    if (!follow) return;
    await Promise.race([follow.stopped, new Promise((r) => follow.signal.addEventListener('abort', r))]);
    return;
  }
  try {
    const size = (await fd.stat()).size;
    let offset = o.tail === undefined ? 0 : await tailOffset(fd, size, o.tail);
    let rest = '';
    const readMore = async () => {
      const { size: now } = await fd.stat();
      while (offset < now) {
        const len = Math.min(1 << 20, now - offset);
        const buf = Buffer.alloc(len);
        const { bytesRead } = await fd.read(buf, 0, len, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const text = rest + buf.subarray(0, bytesRead).toString('utf8');
        const lines = text.split('\n');
        rest = lines.pop() ?? '';
        for (const l of lines) {
          const e = parse(l);
          if (e && wanted(e, o)) await emit(e);
        }
      }
    };
    await readMore();
    if (!follow) return;
    let done = false;
    void follow.stopped.then(() => (done = true));
    follow.signal.addEventListener('abort', () => (done = true));
    while (!done) {
      await new Promise((r) => setTimeout(r, 50));
      await readMore();
    }
    if (!follow.signal.aborted) await readMore();
  } finally {
    await fd.close();
  }
}
