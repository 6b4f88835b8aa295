// Reading a container's json-file log (the reader beside its writer, io.ts): the rotated and current files oldest
// first, tail N lines from the end without reading the whole file, since/until filters, and follow by reading what
// is appended until the container stops. Lines in berth's own layout are decoded without JSON.parse (jsonlog.ts).
import * as zlib from 'node:zlib';
import * as fs from 'node:fs';
import { decodeLine, LineView } from './jsonlog';
import { closeLogSource, LogFileRef, LogSource, openLogFiles } from './logfiles';
import type { LogEntry, LogReadOptions } from '../types/logs';

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
 * `from`..`until`), a chunk at a time, to `visitChunk` (ending with a newline; valid until the promise it returns
 * settles: the read buffers are reused), then, with `follow`,
 * whatever is appended to the current file until `stopped` resolves (plus a final read). Returns when done or
 * aborted, with no read running. Closes the source's files. `buffers`: two buffers of READ_CHUNK_MAX bytes to read
 * into, in turn (a chunk is a view of one of them unless it joins a partial line longer than HEAD bytes to the read
 * after it); otherwise the reader allocates its own.
 */
export async function readLines(source: LogSource | string, o: LogReadOptions, visitChunk: (chunk: Buffer) => void | Promise<void>, follow?: LogFollow, buffers?: readonly Buffer[]): Promise<void> {
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
      // Without follow, the current file as it was when opened (the capture, on its own thread, goes on appending).
      const end = i === last && lastEnd !== undefined ? lastEnd : following ? undefined : await endOf(i);
      await readSegment(segs[i], offset, end, visitChunk, following ? follow : undefined, buffers);
    }
    if (follow && !current) await Promise.race([follow.stopped, new Promise((r) => follow.signal.addEventListener('abort', r))]);
  } finally {
    closeLogSource(src);
  }
}

const CHUNK = 1 << 20;
const HEAD = 64 << 10;
/** The largest chunk a reader is handed with no partial line joined to it (see readSegment). */
export const READ_CHUNK_MAX = HEAD + CHUNK;

/** Reads one file from `offset` to `until` (undefined: its size, then, with `follow`, what is appended). */
async function readSegment(seg: Segment, start: number, until: number | undefined, visitChunk: (chunk: Buffer) => void | Promise<void>, follow?: LogFollow, given?: readonly Buffer[]): Promise<void> {
  let offset = start;
  let rest: Buffer = Buffer.alloc(0);
  // The next chunk is read while this one is visited; each is read HEAD bytes into its buffer, where the partial
  // line left over from the one before goes (when it fits: else the two are joined). Two buffers, used in turn: the
  // read into one is issued only once the chunk in it was visited (a fresh megabyte per read cost its page faults
  // and unmapping, about as much as decoding it).
  const bufs: Buffer[] = given ? [...given] : [];
  let turn = 0;
  const readMore = async () => {
    const now = until ?? (await seg.size());
    const issue = (at: number) => {
      const want = HEAD + Math.min(CHUNK, now - at);
      let buf = bufs[turn];
      if (!buf || buf.length < want) buf = bufs[turn] = Buffer.allocUnsafe(want);
      turn ^= 1;
      return seg.read(buf, HEAD, want - HEAD, at).then((n) => ({ buf, n }));
    };
    let next = offset < now ? issue(offset) : undefined;
    try {
      while (next) {
        const { buf, n } = await next;
        next = undefined;
        if (n === 0) break;
        offset += n;
        if (offset < now && !follow?.signal.aborted) next = issue(offset);
        let chunk: Buffer;
        if (rest.length <= HEAD) {
          rest.copy(buf, HEAD - rest.length);
          chunk = buf.subarray(HEAD - rest.length, HEAD + n);
        } else chunk = Buffer.concat([rest, buf.subarray(HEAD, HEAD + n)]);
        const end = chunk.lastIndexOf(0x0a) + 1; // after the last complete line
        rest = Buffer.from(chunk.subarray(end));
        if (end > 0) await visitChunk(chunk.subarray(0, end));
        if (follow?.signal.aborted) return;
      }
    } finally {
      // never leave a read running on a file the caller is about to close
      await next?.catch(() => undefined);
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
export function visitWanted(text: string, o: LogReadOptions, visit: (e: LineView) => void): void {
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
    async (chunk) => {
      const batch: LogEntry[] = [];
      visitWanted(chunk.toString('latin1'), o, (l) => {
        const e: LogEntry = { stream: l.stream, log: Buffer.from(l.text, 'latin1').toString('utf8'), time: l.time };
        if (l.attrs) e.attrs = JSON.parse(l.attrs) as Record<string, string>;
        batch.push(e);
      });
      for (const e of batch) await emit(e);
    },
    follow,
  );
}
