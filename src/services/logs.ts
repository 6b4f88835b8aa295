// Reading a container's json-file log: tail N lines from the end without reading the whole file, since/until
// filters, and follow by reading what is appended until the container stops.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as zlib from 'node:zlib';
import type { FromWorker, ToWorker } from './logs-worker';
import { decodeLine, LineView, StreamName } from '../runtime/jsonlog';
import { streamType, writeFrameHeader } from '../http/stream';
import { closeLogSource, LogFileRef, LogSource, openLogFiles } from '../runtime/logfiles';

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
  /** Logical range of the log to read (a follow that resumes, a catch-up that stops where live data begins): see
   *  LogFileRef.base. */
  from?: number;
  until?: number;
}

export function timeNs(t: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(t);
  if (!m) return 0n;
  return BigInt(Date.parse(m[1] + 'Z')) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** A file of the source, read by position: a plain file through its fd, a gzipped one decompressed into memory. */
interface Segment {
  ref: LogFileRef;
  read(buf: Buffer, at: number, len: number, pos: number): Promise<number>;
  size(): Promise<number>;
}

function segment(ref: LogFileRef): Segment {
  if (!ref.gz) {
    return {
      ref,
      read: (buf, at, len, pos) => new Promise((res, rej) => fs.read(ref.fd, buf, at, len, pos, (err, n) => (err ? rej(err) : res(n)))),
      size: () => new Promise((res, rej) => fs.fstat(ref.fd, (err, st) => (err ? rej(err) : res(st.size)))),
    };
  }
  let data: Promise<Buffer> | undefined;
  const load = () =>
    (data ??= new Promise<Buffer>((res, rej) => fs.readFile(ref.fd, (err, b) => (err ? rej(err) : res(b)))).then(
      (b) => new Promise<Buffer>((res) => zlib.gunzip(b, (err, out) => res(err ? Buffer.alloc(0) : out))), // a damaged file reads as empty
    ));
  return {
    ref,
    read: async (buf, at, len, pos) => {
      const b = await load();
      return pos >= b.length ? 0 : b.copy(buf, at, pos, Math.min(b.length, pos + len));
    },
    size: async () => (await load()).length,
  };
}

/** Where the last `n` lines of a segment's first `size` bytes start, and how many of the `n` it holds. */
async function tailOffset(seg: Segment, size: number, n: number): Promise<{ offset: number; found: number }> {
  if (n <= 0) return { offset: size, found: 0 };
  const chunk = 64 * 1024;
  let pos = size;
  let newlines = 0;
  const buf = Buffer.alloc(chunk);
  while (pos > 0) {
    const len = Math.min(chunk, pos);
    pos -= len;
    await seg.read(buf, 0, len, pos);
    for (let i = len - 1; i >= 0; i--) {
      if (buf[i] === 0x0a) {
        if (pos + i === size - 1) continue; // the file's final newline
        if (++newlines === n) return { offset: pos + i + 1, found: n };
      }
    }
  }
  return { offset: 0, found: size > 0 ? newlines + 1 : 0 };
}

/** Opens a log file by name (no rotated files): what readers given a path read. */
function asSource(src: LogSource | string): LogSource {
  return typeof src === 'string' ? openLogFiles(src, 0) : src;
}

/**
 * Hands the complete lines of the source's files (oldest first; from the tail offset, or the logical range
 * `from`..`until`), a chunk at a time, to `visitChunk` as a latin1 view (one char per byte), then, with `follow`,
 * whatever is appended to the current file until `stopped` resolves (plus a final read). Returns when done or
 * aborted. Closes the source's files.
 */
async function readLines(source: LogSource | string, o: LogReadOptions, visitChunk: (text: string) => void | Promise<void>, follow?: LogFollow): Promise<void> {
  const src = asSource(source);
  try {
    const segs = src.files.map(segment);
    const current = segs.length && segs[segs.length - 1].ref.current ? segs[segs.length - 1] : undefined;
    // Where to stop: in the file holding logical offset `until`, else at the current file's size when opened.
    let last = segs.length - 1;
    let lastEnd: number | undefined;
    if (o.until !== undefined) {
      for (let i = segs.length - 1; i >= 0; i--) {
        const b = segs[i].ref.base;
        if (b !== undefined && b <= o.until) {
          last = i;
          lastEnd = o.until - b;
          break;
        }
      }
    }
    const endOf = async (i: number): Promise<number> => (i === last && lastEnd !== undefined ? lastEnd : segs[i].ref.current && segs[i].ref.size !== undefined ? segs[i].ref.size! : await segs[i].size());
    // Where to start.
    let first = 0;
    let startAt = 0;
    if (o.from !== undefined) {
      // The file holding logical offset `from` (files wholly before it, or rotated before the capture opened the
      // log, are skipped; if it was deleted meanwhile, the oldest file there is).
      first = last + 1;
      for (let i = 0; i <= last; i++) {
        const b = segs[i].ref.base;
        if (b === undefined) continue;
        const next = i + 1 < segs.length ? segs[i + 1].ref.base : undefined;
        if (next !== undefined && next <= o.from && i < last) continue;
        first = i;
        startAt = Math.max(0, o.from - b);
        break;
      }
    } else if (o.tail !== undefined) {
      first = last + 1;
      let want = o.tail;
      for (let i = last; i >= 0 && want > 0; i--) {
        const t = await tailOffset(segs[i], await endOf(i), want);
        want -= t.found;
        first = i;
        startAt = t.offset;
      }
    }
    if (first > last && last >= 0) {
      // Nothing wanted from the files (tail 0): a follow starts at the end.
      first = last;
      startAt = await endOf(last);
    }
    for (let i = first; i <= last; i++) {
      if (follow?.signal.aborted) return;
      const offset = i === first ? startAt : 0;
      const following = follow && segs[i] === current && lastEnd === undefined;
      await readSegment(segs[i], offset, i === last && lastEnd !== undefined ? lastEnd : segs[i].ref.current ? undefined : await segs[i].size(), visitChunk, following ? follow : undefined);
    }
    if (follow && !current) await Promise.race([follow.stopped, new Promise((r) => follow.signal.addEventListener('abort', r))]);
  } finally {
    closeLogSource(src);
  }
}

/** Reads one file from `offset` to `until` (undefined: its size, then, with `follow`, what is appended). */
async function readSegment(seg: Segment, start: number, until: number | undefined, visitChunk: (text: string) => void | Promise<void>, follow?: LogFollow): Promise<void> {
  let offset = start;
  let rest: Buffer = Buffer.alloc(0);
  const readMore = async () => {
    const now = until ?? (await seg.size());
    while (offset < now) {
      const len = Math.min(1 << 20, now - offset);
      const buf = Buffer.allocUnsafe(rest.length + len);
      rest.copy(buf, 0);
      const bytesRead = await seg.read(buf, rest.length, len, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
      const total = rest.length + bytesRead;
      const end = buf.lastIndexOf(0x0a, total - 1) + 1; // after the last complete line
      rest = Buffer.from(buf.subarray(end, total));
      if (end > 0) await visitChunk(buf.toString('latin1', 0, end));
      if (follow?.signal.aborted) return;
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
}

export interface LogFollow {
  stopped: Promise<void>;
  signal: AbortSignal;
}

/** Each wanted line of a chunk, decoded (a line in another layout goes through JSON.parse; junk is skipped). */
function visitWanted(text: string, o: LogReadOptions, visit: (e: LineView) => void): void {
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end < 0) return;
    const line = start < end ? (decodeLine(text, start, end) ?? parseSlow(text, start, end)) : undefined;
    start = end + 1;
    if (!line || !(line.stream === 'stdout' ? o.stdout : o.stderr)) continue;
    if (o.sinceNs !== undefined && timeNs(line.time) < o.sinceNs) continue;
    visit(line);
  }
}

/** A line that is not in berth's own layout (hand-edited, or another writer's key order): JSON.parse it. */
function parseSlow(text: string, start: number, end: number): LineView | undefined {
  try {
    const e = JSON.parse(Buffer.from(text.slice(start, end), 'latin1').toString('utf8')) as LogEntry;
    if (typeof e.log !== 'string' || (e.stream !== 'stdout' && e.stream !== 'stderr') || typeof e.time !== 'string') return undefined;
    return { stream: e.stream, text: Buffer.from(e.log).toString('latin1'), time: e.time, attrs: e.attrs ? JSON.stringify(e.attrs) : undefined };
  } catch {
    return undefined;
  }
}

/**
 * Emits the entries of `file` (from the tail offset), then, with `follow`, whatever is appended until `stopped`
 * resolves (plus a final read). Returns when done or when `aborted` is set.
 */
export async function readLogs(file: LogSource | string, o: LogReadOptions, emit: (e: LogEntry) => void | Promise<void>, follow?: LogFollow): Promise<void> {
  await readLines(
    file,
    o,
    async (text) => {
      const batch: LogEntry[] = [];
      visitWanted(text, o, (l) => {
        const e: LogEntry = { stream: l.stream, log: Buffer.from(l.text, 'latin1').toString('utf8'), time: l.time };
        if (l.attrs) e.attrs = JSON.parse(l.attrs) as Record<string, string>;
        batch.push(e);
      });
      for (const e of batch) await emit(e);
    },
    follow,
  );
}

export interface LogStreamFormat {
  /** Multiplexed 8-byte frames (false for a TTY container: raw bytes). */
  framed: boolean;
  timestamps: boolean;
  /** `details` (1.24): the entry's attributes as `k=v,k=v ` before the text. */
  details: boolean;
}

/**
 * The logs endpoint's byte stream: every wanted entry of `file`, framed or raw, written in one buffer per chunk of
 * the file (a write per entry held the path to a fraction of the disk's speed).
 */
export async function streamLogs(file: LogSource | string, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer) => void | Promise<void>, follow?: LogFollow): Promise<void> {
  await readLines(
    file,
    o,
    async (text) => {
      if (!fmt.timestamps && !fmt.details && o.sinceNs === undefined) {
        const bulk = bulkPayload(text, o);
        if (bulk !== undefined) {
          if (bulk.text || bulk.newline) await write(frameLatin1(bulk.stream, bulk.text, bulk.newline, fmt.framed));
          return;
        }
      }
      // The output is never longer than the chunk plus a header per line (timestamps are longer unfixed… by at
      // most 9 digits, and details add their prefix): grow when needed.
      let out = Buffer.allocUnsafe(text.length + 64 * 1024);
      let at = 0;
      visitWanted(text, o, (l) => {
        let body = l.text;
        if (fmt.details) body = detailsPrefix(l.attrs) + body;
        if (fmt.timestamps) body = `${fixedNano(l.time)} ${body}`;
        const n = body.length; // bytes: one latin1 char each
        if (at + n + 8 > out.length) {
          const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, at + n + 8));
          out.copy(bigger, 0, 0, at);
          out = bigger;
        }
        if (fmt.framed) {
          writeFrameHeader(out, at, streamType(l.stream), n);
          at += 8;
        }
        at += (out as Buffer & { latin1Write(s: string, at: number): number }).latin1Write(body, at); // write() without its argument checks
      });
      if (at) await write(out.subarray(0, at));
    },
    follow,
  );
}

// Between two entries of one stream: the JSON after an entry ending with a newline, and after a partial one.
const GLUE: Record<StreamName, [RegExp, RegExp, string]> = {
  stdout: [/\\n","stream":"stdout","time":"[^"]*"\}\n\{"log":"/g, /","stream":"stdout","time":"[^"]*"\}\n\{"log":"/g, '","stream":"stdout","time":"'],
  stderr: [/\\n","stream":"stderr","time":"[^"]*"\}\n\{"log":"/g, /","stream":"stderr","time":"[^"]*"\}\n\{"log":"/g, '","stream":"stderr","time":"'],
};

/**
 * The common case in one go: a chunk of berth-written lines of one stream, with nothing to unescape but the
 * newlines that end entries, becomes its payload by two native regular-expression replacements of the JSON between
 * entries (instead of decoding line by line). Undefined when the chunk is not like that: decode it line by line.
 * The payload then goes out as one frame (a client demultiplexes frames of any size the same way).
 */
function bulkPayload(text: string, o: LogReadOptions): { stream: StreamName; text: string; newline: boolean } | undefined {
  if (!text.startsWith('{"log":"')) return undefined;
  // Worth it for short lines (per-line work dominates); long ones decode faster one by one.
  const first = text.indexOf('\n');
  if (first > 400 || (first > 0 && text.indexOf('\n', 4 * 400) > 8 * 400)) return undefined;
  // The first entry's stream (its key is the first: inside log text every quote is escaped). Entries of the other
  // stream keep their JSON through the replacements below, and their quotes send the chunk down the slow path.
  const k = text.indexOf('","stream":"std');
  const stream: StreamName | undefined = text.startsWith('out"', k + 15) ? 'stdout' : text.startsWith('err"', k + 15) ? 'stderr' : undefined;
  if (k < 0 || !stream || !(stream === 'stdout' ? o.stdout : o.stderr)) return undefined;
  const [withNewline, partial, key] = GLUE[stream];
  let body = text.slice(8).replace(withNewline, '\n');
  // What is left must be one entry's body and its ending, nothing else.
  let end = body.lastIndexOf(key);
  if (end >= 0 && body.indexOf(key) !== end) {
    body = body.replace(partial, ''); // entries that did not end with a newline (partial lines)
    end = body.lastIndexOf(key);
  }
  if (end < 0 || !/^","stream":"std(out|err)","time":"[^"]*"\}\n$/.test(body.slice(end))) return undefined;
  const newline = body.startsWith('\\n', end - 2) && !body.startsWith('\\\\n', end - 3);
  body = body.slice(0, newline ? end - 2 : end);
  if (body.includes('\\') || body.includes('"')) return undefined; // escapes, other layouts, the other stream
  return { stream, text: body, newline };
}

/** One frame (or raw bytes) of a latin1 payload, plus the entry's final newline. */
function frameLatin1(stream: StreamName, text: string, newline: boolean, framed: boolean): Buffer {
  const n = text.length + (newline ? 1 : 0); // bytes: one latin1 char each
  const out = Buffer.allocUnsafe((framed ? 8 : 0) + n);
  let at = 0;
  if (framed) {
    writeFrameHeader(out, 0, streamType(stream), n);
    at = 8;
  }
  at += out.write(text, at, 'latin1');
  if (newline) out[at] = 0x0a;
  return out;
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

/** The engine's `details` prefix: the attributes as query-escaped `k=v` pairs joined by commas, then a space (a
 *  lone space when there are none). The engine's order is its map's; berth sorts. */
export function detailsPrefix(attrsJson: string | undefined): string {
  const attrs = attrsJson ? (JSON.parse(attrsJson) as Record<string, string>) : {};
  const keys = Object.keys(attrs).sort();
  return keys.map((k) => `${queryEscape(k)}=${queryEscape(attrs[k])}`).join(',') + ' ';
}

/** The engine prints log timestamps as RFC3339NanoFixed (nine digits), whatever the file holds. */
export function fixedNano(time: string): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(time);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}Z` : time;
}

/**
 * Runs streamLogs on the log reader thread (logs-worker): started on first use, ended after a quiet spell so an
 * idle berth holds no extra thread. Falls back to the main thread if the worker cannot run.
 */
export class LogReaderThread {
  private worker?: Worker;
  private nextRid = 1;
  private readonly runs = new Map<number, { src: LogSource; write: (b: Buffer) => void | Promise<void>; resolve: () => void; reject: (e: Error) => void }>();
  private idle?: NodeJS.Timeout;

  constructor(private readonly idleMs = 15_000) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    // Compiled code runs the compiled worker next to it; the tests (TypeScript through swc) run the build's.
    const w = new Worker(this.workerFile());
    w.unref();
    w.on('message', (m: FromWorker) => {
      const run = this.runs.get(m.rid);
      if (!run) return;
      if (m.type === 'data') {
        const done = () => this.post({ type: 'ack', rid: m.rid });
        Promise.resolve(run.write(Buffer.from(m.buf, 0, m.length))).then(done, done);
        return;
      }
      this.runs.delete(m.rid);
      closeLogSource(run.src);
      if (m.type === 'end') run.resolve();
      else run.reject(new Error(m.message));
      this.maybeIdle();
    });
    const fail = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const r of this.runs.values()) {
        closeLogSource(r.src); // the thread is gone: its reads with them
        r.reject(err);
      }
      this.runs.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`log reader thread exited (${code})`)));
    this.worker = w;
    return w;
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }

  private maybeIdle(): void {
    if (this.runs.size || this.idle) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.runs.size) return;
      const w = this.worker;
      this.worker = undefined;
      void w?.terminate();
    }, this.idleMs);
    this.idle.unref();
  }

  /** Reads `src` on the log reader thread, then closes its files. */
  stream(src: LogSource, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer) => void | Promise<void>, follow?: LogFollow): Promise<void> {
    if (!fs.existsSync(this.workerFile())) return streamLogs(src, o, fmt, write, follow);
    if (this.idle) {
      clearTimeout(this.idle);
      this.idle = undefined;
    }
    const w = this.start();
    const rid = this.nextRid++;
    return new Promise<void>((resolve, reject) => {
      this.runs.set(rid, { src, write, resolve, reject });
      w.postMessage({ type: 'open', rid, src, o, fmt, follow: !!follow } satisfies ToWorker);
      if (follow) {
        void follow.stopped.then(() => this.post({ type: 'stop', rid }));
        follow.signal.addEventListener('abort', () => this.post({ type: 'abort', rid }));
      }
    });
  }

  private workerFile(): string {
    return __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/src/services/logs-worker.js') : path.join(__dirname, 'logs-worker.js');
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
  }
}
