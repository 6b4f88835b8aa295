// The logs endpoint's byte stream from a container's json-file log (read by runtime/logread): entries framed or
// raw, with timestamps and details, in one buffer per chunk of the file; and the log reader thread that does the
// same for big reads and follows off the main thread.
import type { FromWorker, ToWorker } from './logs-worker';
import { streamType, writeFrameHeader } from '../translate/stream';
import { releaseLogDecoder, sharedLogDecoder, takeLogDecoder } from '../runtime/jsonlog';
import { closeLogSource, LogSource } from '../runtime/logfiles';
import { IdleWorker, workerFile } from '../runtime/idle-worker';
import { LogFollow, READ_CHUNK_MAX, readLines, visitWanted } from '../runtime/logread';
import type { LogReadOptions, LogStreamFormat } from '../types/logs';

/**
 * The logs endpoint's byte stream: every wanted entry of `file`, framed (a frame per entry, as the engine) or raw,
 * written in one buffer per chunk of the file (a write per entry held the path to a fraction of the disk's speed).
 * Without timestamps, details or since, berth's own lines go through the SIMD decoder (jsonlog.wat); what it does not
 * handle, and the other formats, through the general decoder.
 */
export async function streamLogs(file: LogSource | string, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer) => void | Promise<void>, follow?: LogFollow, alloc: (n: number) => Buffer = Buffer.allocUnsafe): Promise<void> {
  // The file is read straight into the decoder's memory (its read buffers): a chunk is decoded where it was read.
  const decoder = !fmt.timestamps && !fmt.details && o.sinceNs === undefined ? takeLogDecoder(READ_CHUNK_MAX) : undefined;
  const flags = { stdout: o.stdout, stderr: o.stderr, framed: fmt.framed };
  try {
    await readLines(
      file,
      o,
      async (chunk) => {
        let out: Out;
        // (a chunk joined outside the read buffers, a partial line longer than their head room with the read after
        // it, is copied into the thread's other decoder)
        const d = decoder?.holds(chunk) ? decoder : decoder && sharedLogDecoder();
        if (!d) out = formatLines(chunk.toString('latin1'), o, fmt, { b: Buffer.allocUnsafe(chunk.length + 64 * 1024), at: 0 });
        else {
          // The output is never longer than the input (a line is longer than its entry's frame).
          out = { b: alloc(chunk.length), at: 0 };
          for (let from = 0; from < chunk.length; ) {
            const r = d.decode(chunk, from, flags);
            out.at += r.out.copy(out.b, out.at);
            if (r.stopped >= chunk.length) break;
            const nl = chunk.indexOf(0x0a, r.stopped);
            from = nl < 0 ? chunk.length : nl + 1;
            out = formatLines(chunk.toString('latin1', r.stopped, from), o, fmt, out);
          }
        }
        if (out.at) await write(out.b.subarray(0, out.at));
      },
      follow,
      decoder?.readBuffers(),
    );
  } finally {
    // (readLines returns with no read running into the decoder's buffers)
    if (decoder) releaseLogDecoder(decoder, READ_CHUNK_MAX);
  }
}

interface Out {
  b: Buffer;
  at: number;
}

/** The general decoder: the wanted entries of `text` (whole lines, a latin1 view) formatted into `out` (grown when
 *  needed: timestamps are longer unfixed, details add their prefix). */
function formatLines(text: string, o: LogReadOptions, fmt: LogStreamFormat, out: Out): Out {
  visitWanted(text, o, (l) => {
    let body = l.text;
    if (fmt.details) body = detailsPrefix(l.attrs) + body;
    if (fmt.timestamps) body = `${fixedNano(l.time)} ${body}`;
    const n = body.length; // bytes: one latin1 char each
    if (out.at + n + 8 > out.b.length) {
      const bigger = Buffer.allocUnsafe(Math.max(out.b.length * 2, out.at + n + 8));
      out.b.copy(bigger, 0, 0, out.at);
      out.b = bigger;
    }
    if (fmt.framed) {
      writeFrameHeader(out.b, out.at, streamType(l.stream), n);
      out.at += 8;
    }
    out.at += (out.b as Buffer & { latin1Write(s: string, at: number): number }).latin1Write(body, out.at); // write() without its argument checks
  });
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

/** Hands a chunk of the endpoint's bytes on; resolves when more may come. */
export type ChunkWrite = (b: Buffer, release?: () => void) => void | Promise<void>;

/**
 * Runs streamLogs on the log reader thread (logs-worker): started on first use, ended after a quiet spell so an
 * idle berth holds no extra thread. Falls back to the main thread if the worker cannot run.
 */
export class LogReaderThread {
  private nextRid = 1;
  private readonly runs = new Map<number, { src: LogSource; write: ChunkWrite; resolve: () => void; reject: (e: Error) => void }>();
  private readonly thread: IdleWorker<ToWorker, FromWorker>;

  constructor(idleMs = 15_000) {
    this.thread = new IdleWorker('log reader thread', workerFile(__filename, 'logs-worker.js'), idleMs, {
      message: (m) => this.message(m),
      failed: (err) => {
        for (const r of this.runs.values()) {
          closeLogSource(r.src); // the thread is gone: its reads with them
          r.reject(err);
        }
        this.runs.clear();
      },
      busy: () => this.runs.size > 0,
    });
  }

  private message(m: FromWorker): void {
    const run = this.runs.get(m.rid);
    if (!run) return;
    if (m.type === 'data') {
      // The buffer goes back to the thread (for its next chunk) once the socket is done with it: with the ack
      // (the thread may decode another chunk) when written out by then, else on its own.
      let back: ArrayBuffer | undefined;
      let acked = false;
      const release = () => {
        if (acked) this.thread.post({ type: 'recycle', rid: m.rid, buf: m.buf }, [m.buf]);
        else back = m.buf;
      };
      const done = () => {
        acked = true;
        this.thread.post({ type: 'ack', rid: m.rid, buf: back }, back ? [back] : undefined);
      };
      Promise.resolve(run.write(Buffer.from(m.buf, 0, m.length), release)).then(done, done);
      return;
    }
    this.runs.delete(m.rid);
    closeLogSource(run.src);
    if (m.type === 'end') run.resolve();
    else run.reject(new Error(m.message));
    this.thread.settled();
  }

  /** Reads `src` on the log reader thread, then closes its files. `write`'s `release`, when it calls it, says the
   *  destination is done with the chunk (its memory is reused). */
  stream(src: LogSource, o: LogReadOptions, fmt: LogStreamFormat, write: ChunkWrite, follow?: LogFollow): Promise<void> {
    const w = this.thread.get();
    if (!w) return streamLogs(src, o, fmt, write, follow);
    const rid = this.nextRid++;
    return new Promise<void>((resolve, reject) => {
      this.runs.set(rid, { src, write, resolve, reject });
      w.postMessage({ type: 'open', rid, src, o, fmt, follow: !!follow } satisfies ToWorker);
      if (follow) {
        void follow.stopped.then(() => this.thread.post({ type: 'stop', rid }));
        follow.signal.addEventListener('abort', () => this.thread.post({ type: 'abort', rid }));
      }
    });
  }

  close(): void {
    this.thread.close();
  }
}
