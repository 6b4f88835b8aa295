// The logs endpoint's byte stream from a container's json-file log (read by runtime/logread): entries framed or
// raw, with timestamps and details, in one buffer per chunk of the file; and the log reader thread that does the
// same for big reads and follows off the main thread.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './logs-worker';
import { frameLines, streamType, writeFrameHeader } from '../translate/stream';
import { closeLogSource, LogSource } from '../runtime/logfiles';
import { LogFollow, readLines, visitWanted } from '../runtime/logread';
import type { LogReadOptions, LogStreamFormat } from '../types/logs';
import type { StreamName } from '../types/io';

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
        // framed, a frame per entry (as the engine): the bulk payload's newlines are its entries' ends unless
        // partial entries were joined in it
        if (bulk !== undefined && !(fmt.framed && bulk.joined)) {
          if (bulk.text || bulk.newline) {
            const raw = frameLatin1(bulk.stream, bulk.text, bulk.newline, false);
            await write(fmt.framed ? frameLines(streamType(bulk.stream), raw) : raw);
          }
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
 * The payload then goes out as one buffer (framed, a frame per entry).
 */
function bulkPayload(text: string, o: LogReadOptions): { stream: StreamName; text: string; newline: boolean; joined: boolean } | undefined {
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
  let joined = false;
  if (end >= 0 && body.indexOf(key) !== end) {
    joined = true;
    body = body.replace(partial, ''); // entries that did not end with a newline (partial lines)
    end = body.lastIndexOf(key);
  }
  if (end < 0 || !/^","stream":"std(out|err)","time":"[^"]*"\}\n$/.test(body.slice(end))) return undefined;
  const newline = body.startsWith('\\n', end - 2) && !body.startsWith('\\\\n', end - 3);
  body = body.slice(0, newline ? end - 2 : end);
  if (body.includes('\\') || body.includes('"')) return undefined; // escapes, other layouts, the other stream
  return { stream, text: body, newline, joined };
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
