// The json-file log writer: a container's output encoded as the engine's json-file lines (jsonlog.ts), appended to
// `<log>`, rotated and compressed as the engine does (logfiles.ts), with listeners for what is appended (logs -f).
// Its reader is logread.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { logTime, now } from './clock';
import { incompleteUtf8Tail, LogEncoder } from './jsonlog';
import { compressFile, LogSource, NO_ROTATION, openLogFiles, readableRotated, rotatedName } from './logfiles';
import type { JsonFileOptions, StreamName } from '../types/io';
import type { Timestamp } from '../types/time';

/**
 * What was appended to the log: the entries' bytes, their time, the log's logical size after them (see LogFileRef:
 * bytes written since the capture opened the log, across rotations), and whether the bytes are valid UTF-8 (then a
 * reader gets them back as they are; otherwise as asLogged() gives them). The bytes are valid during the call only
 * (the read buffer is reused): a listener that keeps them copies them. `framed(type)`, when given, is `content`
 * framed a line to a frame from the encoder's copy of it (or undefined): a view valid until the next call.
 */
export type LogAppendListener = (stream: StreamName, content: Buffer, time: string, end: number, valid?: boolean, framed?: (type: number) => Buffer | undefined) => void;

export interface JsonFileLogOptions extends JsonFileOptions {
  /** The attributes each entry carries (labels, env, tag options), as the engine's JSON of them. */
  attrs?: string;
  /** The log could not be written (a full disk): told once, at the first entry dropped. */
  onWriteFailure?: (err: Error) => void;
  /** Writing works again after a failure: how many entries were dropped meanwhile. */
  onWriteResumed?: (dropped: number) => void;
}

const TIME_KEY = Buffer.from(',"time":"');

/** The encoder's lines with `,"attrs":{...}` before each `,"time":"` (the engine's key order: log, stream, attrs,
 *  time). Inside the log text every quote is escaped, so `,"time":"` occurs once per line, at its end. */
function withAttrs(out: Buffer, attrs: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const k = out.indexOf(TIME_KEY, at);
    if (k < 0) break;
    parts.push(out.subarray(at, k), attrs);
    at = k;
    const nl = out.indexOf(0x0a, k);
    if (nl < 0) break;
    parts.push(out.subarray(k, nl + 1));
    at = nl + 1;
  }
  parts.push(out.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Appends json-file lines synchronously, so that what was read from a FIFO is on disk before the next read. A final
 * partial line is written at once (as the engine writes a partial entry), except for the bytes of a UTF-8
 * character cut by the read, which wait for the rest of it.
 *
 * With max-size, the engine's rotation: before an entry is written, a file that has reached max-size becomes
 * `<log>.1` (`.1` → `.2` ..., the one beyond max-file − 1 deleted; with max-file 1 the previous file is kept as `.1`
 * and never read, as the engine does), and a new file is started. With compress, each file is gzipped in the
 * background once it is rotated (into a hidden temporary file, renamed to `.N.gz` under the index the file has by
 * then, the plain one removed), so rotation never waits for it: the files are cut where the engine's are (its
 * writer waits for the previous compression instead).
 */
export class JsonFileLog {
  private fd: number;
  /** The current file's size: where the next entries go. */
  size: number;
  /** Logical offset of the current file's first byte. */
  private base = 0;
  /** The rotated files a reader reads (`.1` first): where each starts (undefined: rotated before we opened the
   *  log) and whether it is gzipped yet. */
  private rotated: RotatedFile[] = [];
  private readonly jobs = new Set<Promise<void>>();
  private lastTime = '';
  onAppend?: LogAppendListener;
  /** After each write to the file (a rotating append of many entries is many writes): progress, for a watcher on
   *  another thread. */
  onWrite?: () => void;
  /** The clock the entries' time is read from (a test fixes it). */
  clock: () => Timestamp = now;
  private readonly encoder = new LogEncoder();
  private readonly framed = (type: number) => this.encoder.frameLast(type);
  private readonly held: Record<StreamName, Buffer | undefined> = { stdout: undefined, stderr: undefined };
  private readonly opts: JsonFileOptions;
  private readonly attrs?: Buffer;
  /** Entries dropped since writing started failing (undefined while writes work). */
  private dropped?: number;
  private readonly onWriteFailure?: (err: Error) => void;
  private readonly onWriteResumed?: (dropped: number) => void;
  constructor(readonly file: string, opts: JsonFileLogOptions = NO_ROTATION) {
    this.opts = { maxSize: opts.maxSize, maxFiles: opts.maxFiles, compress: opts.compress };
    this.onWriteFailure = opts.onWriteFailure;
    this.onWriteResumed = opts.onWriteResumed;
    if (opts.attrs) this.attrs = Buffer.from(',"attrs":' + opts.attrs);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'a', 0o640);
    this.size = fs.fstatSync(this.fd).size;
    for (let i = 1; i <= this.readable; i++) {
      const plain = fs.existsSync(rotatedName(file, i, false));
      this.rotated.push({ base: undefined, gz: !plain, there: plain || fs.existsSync(rotatedName(file, i, true)) });
    }
    if (this.opts.compress) {
      // A berth stopped while it compressed left temporary files and plain rotated files: start again.
      const dir = path.dirname(file);
      const prefix = `.${path.basename(file)}.gz-`;
      for (const f of fs.readdirSync(dir)) if (f.startsWith(prefix)) fs.rmSync(path.join(dir, f), { force: true });
      this.rotated.forEach((r, i) => {
        if (!r.gz) this.compress(r, fs.statSync(rotatedName(file, i + 1, false)).mtime.toISOString());
      });
    }
  }
  /** The number of rotated files a reader reads. */
  private get readable(): number {
    return readableRotated(this.opts);
  }
  /** The log's logical size: the offset after the last entry written. */
  get end(): number {
    return this.base + this.size;
  }
  write(stream: StreamName, chunk: Buffer): void {
    const held = this.held[stream];
    if (held) {
      chunk = Buffer.concat([held, chunk]);
      this.held[stream] = undefined;
    }
    if (chunk[chunk.length - 1] !== 0x0a) {
      const cut = incompleteUtf8Tail(chunk);
      if (cut) {
        this.held[stream] = Buffer.from(chunk.subarray(chunk.length - cut));
        chunk = chunk.subarray(0, chunk.length - cut);
      }
    }
    this.append(stream, chunk);
  }
  private append(stream: StreamName, chunk: Buffer): void {
    if (!chunk.length || this.fd < 0) return;
    const time = logTime(this.clock());
    let out = this.encoder.encode(chunk, stream, time);
    if (this.attrs) out = withAttrs(out, this.attrs);
    try {
      if (this.opts.maxSize < 0) this.writeOut(out, 0, out.length);
      else this.writeRotating(out, time);
    } catch (err) {
      // A full disk (or another write error): the entries are dropped, as the engine's json-file driver drops a
      // message it cannot write, and the file keeps only whole lines. Readers and followers see what the file has.
      const entries = countLines(out);
      if (this.dropped === undefined) {
        this.dropped = entries;
        this.onWriteFailure?.(err as Error);
      } else this.dropped += entries;
      return;
    }
    if (this.dropped !== undefined) {
      const n = this.dropped;
      this.dropped = undefined;
      this.onWriteResumed?.(n);
    }
    // (with attributes the encoder's output was copied out: the chunk it encoded is still in its memory)
    this.onAppend?.(stream, chunk, time, this.end, this.encoder.lastValid, this.framed);
  }
  /** Writes the range whole or not at all: a write that fails part-way is cut back (shrinking needs no space). */
  private writeOut(out: Buffer, from: number, to: number): void {
    let off = from;
    try {
      while (off < to) off += fs.writeSync(this.fd, out, off, to - off);
    } catch (err) {
      if (off > from) {
        try {
          fs.ftruncateSync(this.fd, this.size);
        } catch {
          /* left as it is: a reader skips a broken line */
        }
      }
      throw err;
    }
    this.size += to - from;
    this.onWrite?.();
  }
  /** Entry by entry as the engine: a file that reached max-size is rotated before the next entry. */
  private writeRotating(out: Buffer, time: string): void {
    const max = this.opts.maxSize;
    let at = 0;
    while (at < out.length) {
      if (this.size >= max) this.rotate();
      // The entries up to the one that reaches max-size (at least one).
      const nl = out.indexOf(0x0a, at + Math.max(0, max - this.size - 1));
      const end = nl < 0 ? out.length : nl + 1;
      this.writeOut(out, at, end);
      this.lastTime = time;
      at = end;
    }
  }
  private rotate(): void {
    const { maxFiles, compress } = this.opts;
    fs.closeSync(this.fd);
    this.fd = -1;
    try {
      if (maxFiles >= 2) {
        const n = maxFiles - 1;
        for (const gz of [false, true]) fs.rmSync(rotatedName(this.file, n, gz), { force: true });
        for (let i = n; i > 1; i--) {
          const r = this.rotated[i - 2];
          if (r && !r.there) continue; // a file that is not there (max-file 200: most of them, early on)
          for (const gz of r ? [r.gz] : [false, true]) renameIfThere(rotatedName(this.file, i - 1, gz), rotatedName(this.file, i, gz));
        }
      }
      renameIfThere(this.file, rotatedName(this.file, 1, false));
    } finally {
      // Like the engine, the new file is opened truncated even if a rename failed.
      this.fd = fs.openSync(this.file, 'w', 0o640);
    }
    const r: RotatedFile = { base: this.base, gz: false, there: true };
    this.rotated.unshift(r);
    this.rotated.length = this.readable;
    this.base += this.size;
    this.size = 0;
    if (compress && maxFiles >= 2) this.compress(r, this.lastTime);
  }
  /** Gzips rotated file `r` (now `.1`, or `.N` at start-up) in the background; see the class comment. */
  private compress(r: RotatedFile, lastTime: string): void {
    const i = this.rotated.indexOf(r);
    let src: number;
    try {
      src = fs.openSync(rotatedName(this.file, i + 1, false), 'r');
    } catch {
      return;
    }
    const tmp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.gz-${++compressions}.tmp`);
    const job: Promise<void> = compressFile(src, tmp, lastTime).then(
      () => {
        // Synchronous, on the thread that rotates: the file's index now.
        const k = this.rotated.indexOf(r);
        if (k < 0) return fs.rmSync(tmp, { force: true }); // deleted meanwhile (beyond max-file)
        fs.renameSync(tmp, rotatedName(this.file, k + 1, true));
        r.gz = true;
        fs.rmSync(rotatedName(this.file, k + 1, false), { force: true });
      },
      () => fs.rmSync(tmp, { force: true }), // left plain: still read (and kept plain)
    ).catch(() => undefined).finally(() => this.jobs.delete(job));
    this.jobs.add(job);
  }
  /** Resolves when no compression is under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.jobs.size) await Promise.all([...this.jobs]);
  }
  /** The files as of now, opened (see LogSource): the rotated ones a reader reads, then the current one. */
  open(): LogSource {
    return openLogFiles(this.file, this.readable, { rotatedBase: (i) => this.rotated[i - 1]?.base, base: this.base, size: this.size });
  }
  /** Where each file starts (logical offsets), for opening the files of a closed log on another thread
   *  (openClosedLog): once closed, nothing rotates them. */
  get layout(): LogLayout {
    return { file: this.file, readable: this.readable, rotatedBases: this.rotated.map((r) => r.base), base: this.base, size: this.size };
  }
  get isOpen(): boolean {
    return this.fd >= 0;
  }
  /** Idempotent: a second close must not hit the number of an fd opened since (EOF and close() both call it). */
  close(): void {
    if (this.fd < 0) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.held[stream];
      this.held[stream] = undefined;
      if (rest) this.append(stream, rest); // the character never completed: U+FFFD, as the engine writes it
    }
    const fd = this.fd;
    this.fd = -1;
    try {
      fs.closeSync(fd);
    } catch {
      /* closed */
    }
  }
}

export interface LogLayout {
  file: string;
  readable: number;
  rotatedBases: (number | undefined)[];
  base: number;
  size: number;
}

/** The files of a closed log whose layout its writer gave (compression may still rename `.N` to `.N.gz`: openRotated
 *  finds one or the other). */
export function openClosedLog(l: LogLayout): LogSource {
  return openLogFiles(l.file, l.readable, { rotatedBase: (i) => l.rotatedBases[i - 1], base: l.base, size: l.size });
}

interface RotatedFile {
  base: number | undefined;
  gz: boolean;
  /** The file exists (rotated files not there are not renamed). */
  there: boolean;
}

let compressions = 0;

function renameIfThere(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, i + 1)) n++;
  return n;
}
