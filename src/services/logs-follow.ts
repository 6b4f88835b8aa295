// `logs -f` of a running container: the file is read (and decoded) until the reader is near its end, then the
// entries are passed on as the capture appends them, with no second trip through the json-file format. A client
// that falls more than QUEUE_LIMIT behind is switched back to reading the file from where it stopped, so the
// capture never waits for it and nothing is lost or sent twice. Positions are logical offsets (see LogFileRef), so
// rotations of the files underneath are no concern here.
import { frameLines, framedLinesLength, streamType, writeFramedLines } from '../translate/stream';
import { asLogged, sharedLineFramer } from '../runtime/jsonlog';
import { fixedNano } from './logs';
import { LogFollow, timeNs } from '../runtime/logread';
import type { LogSource } from '../runtime/logfiles';
import type { LogSink, LogReadOptions, LogStreamFormat } from '../types/logs';
import type { StreamName } from '../types/io';
import type { LogAppendListener } from '../runtime/jsonfile';

const QUEUE_LIMIT = 64 << 20;
/** How far behind the end of the file a reader subscribes to the live appends. */
const NEAR = 32 << 20;

export type LogReader = (src: LogSource, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer, release?: () => void) => void | Promise<void>, follow?: LogFollow) => Promise<void>;

/** The payload of the entries appended in one write: the timestamp and details prefixes per entry, unframed. */
function appendedPayload(content: Buffer, time: string, fmt: LogStreamFormat, valid: boolean, details = ' '): Buffer {
  const body = valid ? content : asLogged(content);
  if (!fmt.timestamps && !fmt.details) return body;
  const prefix = Buffer.from((fmt.timestamps ? `${fixedNano(time)} ` : '') + (fmt.details ? details : ''));
  const parts: Buffer[] = [];
  let start = 0;
  while (start < body.length) {
    const nl = body.indexOf(0x0a, start);
    const end = nl < 0 ? body.length : nl + 1;
    parts.push(prefix, body.subarray(start, end));
    start = end;
  }
  return Buffer.concat(parts);
}

/** Frames (a frame per entry, as the engine) or not the entries appended in one write, with the timestamp and details prefixes per entry. */
export function formatAppended(stream: StreamName, content: Buffer, time: string, fmt: LogStreamFormat, valid = false, details = ' '): Buffer {
  const body = appendedPayload(content, time, fmt, valid, details);
  return fmt.framed ? frameLines(streamType(stream), body) : body;
}

/** Live appends are handed on in batches of up to this many bytes (a message, a socket write and a client read
 *  each) ... */
export const BATCH = 1 << 20;
/** ... or this long after the first of them: a follower sees a line within a few milliseconds, and a container
 *  printing short lines quickly costs one batch per megabyte instead of one per read of its output. While an
 *  earlier batch is still being written out to the client, a partial one waits for it (or until it is full): the
 *  client could not have it sooner, and a busy follow is then a message, a socket write and a client read per
 *  megabyte rather than per 2 ms (about 700 batches per 256 MiB of 63-byte lines in 64 KiB writes, most of them
 *  partial, before). */
const BATCH_DELAY_MS = 2;

/**
 * One follower's side on the capture thread: what the log receives, formatted (a frame per entry, prefixes) into
 * batches of up to BATCH bytes, each handed to `emit` with the logical offset after the entries in it. A batch
 * holds whole appends only, so that offset is exact (a follower that falls behind resumes from the files there).
 * Batch buffers come from `alloc` and go back to it once the destination is done with them (see LogCaptureThread).
 */
export class FollowBatcher {
  private b?: Buffer;
  private used = 0;
  private end = 0;
  private timer?: NodeJS.Timeout;
  /** The payload put could not fit, as the SIMD framer framed it (a view into its memory, for the put after the
   *  flush: nothing frames meanwhile). */
  private framedView?: Buffer;
  /** Batches handed on whose destination is not done with them yet (see released()). */
  private inFlight = 0;
  /** The delay ran out while a batch was in flight: the partial batch goes as soon as none is. */
  private due = false;

  constructor(
    private readonly o: LogReadOptions,
    private readonly fmt: LogStreamFormat,
    private readonly details: string,
    private readonly alloc: (need: number) => Buffer,
    private readonly emit: (b: Buffer, used: number, end: number) => void,
    /** Whether the destination says when it is done with each batch (released()); without it, batches go after
     *  the delay whatever is in flight. */
    private readonly acked = false,
  ) {}

  /** The destination is done with a batch handed on (written out): a partial batch held back meanwhile goes now. */
  released(): void {
    if (this.inFlight > 0) this.inFlight--;
    if (this.due && !this.inFlight) this.flush();
  }

  readonly append: LogAppendListener = (stream, content, time, end, valid, framed) => {
    const o = this.o;
    if ((stream === 'stdout' ? o.stdout : o.stderr) && (o.sinceNs === undefined || timeNs(time) >= o.sinceNs)) {
      const payload = appendedPayload(content, time, this.fmt, !!valid, this.details);
      // The entries as they are (no prefixes): framed from the encoder's copy of them, when it has one.
      const direct = payload === content ? framed : undefined;
      this.framedView = undefined;
      if (!this.put(stream, payload, direct)) {
        // It does not fit in what is left of the batch: the batch goes as it is, the append into a new one.
        this.flush();
        const need = this.fmt.framed ? (this.unfitLength() ?? framedLinesLength(payload)) : payload.length;
        this.b = this.alloc(need);
        this.put(stream, payload, direct);
        this.framedView = undefined;
      }
    }
    this.end = end;
    if (this.used >= BATCH) this.flush();
    else if (this.used && !this.due) this.timer ??= setTimeout(this.delayed, BATCH_DELAY_MS);
  };

  private readonly delayed = () => {
    this.timer = undefined;
    if (this.inFlight) this.due = true;
    else this.flush();
  };

  private unfitLength(): number | undefined {
    return this.framedView?.length;
  }

  /** Writes the payload after what the batch holds; false (nothing written) when it does not fit. */
  private put(stream: StreamName, payload: Buffer, direct?: (type: number) => Buffer | undefined): boolean {
    if (!payload.length) return true;
    this.b ??= this.alloc(payload.length);
    if (this.fmt.framed) {
      // Framed by the SIMD framer into its memory (the encoder's, where the payload already is, or its own), then
      // copied whole (a short payload by the JS loop).
      const f = this.framedView ?? (payload.length >= 256 ? (direct?.(streamType(stream)) ?? sharedLineFramer()?.frame(streamType(stream), payload)) : undefined);
      if (f) {
        if (this.used + f.length > this.b.length) {
          this.framedView = f;
          return false;
        }
        this.used += f.copy(this.b, this.used);
        return true;
      }
      const at = writeFramedLines(this.b, this.used, streamType(stream), payload);
      if (at < 0) return false;
      this.used = at;
      return true;
    }
    if (this.used + payload.length > this.b.length) return false;
    this.used += payload.copy(this.b, this.used);
    return true;
  }

  /** Hands on the batch being filled, if any. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    if (!this.b || !this.used) return;
    const b = this.b;
    const used = this.used;
    this.b = undefined;
    this.used = 0;
    if (this.acked) this.inFlight++;
    this.emit(b, used, this.end);
  }

  /** Stops: what is not handed on is dropped. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    this.b = undefined;
  }
}

/** A batch of formatted entries handed on by a follower's capture-thread side, with the logical offset after them;
 *  `release` when the destination is done with `b`. */
export type LiveBatch = (b: Buffer, end: number, release?: () => void) => void;

/**
 * Follows the log of a running container whose appends `live.subscribe` delivers. Returns undefined, having done
 * nothing, when there is nothing live to follow (the caller then follows the file).
 *
 * Positions are the capture's logical offsets (bytes written since it opened the log, across rotations), so a
 * rotation changes nothing here: `live.open()` opens the files as of that instant, each with the logical offset it
 * starts at, and the reader maps a logical range back to them.
 */
export function followLogs(
  o: LogReadOptions,
  fmt: LogStreamFormat,
  live: {
    /** The log's logical size now (always at an entry boundary); undefined once the run's output is complete. */
    size(): number | undefined;
    /** Starts the follower's capture-thread side (formatting as `o` and `fmt` say): resolves with the logical offset
     *  its batches start at, or undefined when the log is closed. */
    subscribe(o: LogReadOptions, fmt: LogStreamFormat, onBatch: LiveBatch, onEnd: () => void): Promise<{ offset: number; unsubscribe: () => void } | undefined>;
    /** The log's files as of now (read, then closed, by `read`). */
    open(): LogSource | Promise<LogSource>;
  },
  read: LogReader,
  to: LogSink,
): Promise<void> | undefined {
  if (live.size() === undefined) return undefined;
  let endResolve!: () => void;
  const ended = new Promise<void>((r) => (endResolve = r));
  let overflowResolve!: () => void;
  let overflowed!: Promise<void>;
  // Batches of appended entries not handed on yet (formatted on the capture thread), with the logical offset after
  // each.
  const queue: { b: Buffer; end: number; release?: () => void }[] = [];
  let queued = 0; // their bytes
  let catchingUp = true;
  let pumping: Promise<void> | undefined;
  let resumeAt: number | undefined; // set on overflow: the logical offset after the last bytes handed on
  let handedEnd = 0;

  // Hands queued entries on in order, waiting for the destination to drain; one pump at a time.
  const pump = (): Promise<void> => {
    if (pumping) return pumping;
    const p: Promise<void> = (async () => {
      while (queue.length && resumeAt === undefined && !to.signal.aborted) {
        const item = queue.shift()!;
        queued -= item.b.length;
        const ok = to.write(item.b, item.release);
        handedEnd = item.end;
        if (!ok) await to.drained();
      }
    })().finally(() => {
      if (pumping === p) pumping = undefined;
    });
    pumping = p;
    return p;
  };

  // Each subscription's batches carry its number: batches of an earlier one still in flight after an overflow are
  // dropped (they are read from the files).
  let generation = 0;
  const onBatch = (gen: number, b: Buffer, end: number, release?: () => void) => {
    if (resumeAt !== undefined || gen !== generation) return release?.();
    queue.push({ b, end, release });
    queued += b.length;
    if (queued > QUEUE_LIMIT) {
      // Too far behind: drop what waits and read it from the files instead.
      resumeAt = handedEnd;
      for (const q of queue.splice(0)) q.release?.();
      queued = 0;
      overflowResolve();
      return;
    }
    if (!catchingUp) void pump(); // else handed on when the catch-up ends
  };
  const writeAwait = async (b: Buffer, release?: () => void) => {
    if (!to.write(b, release)) await to.drained();
  };
  const aborted = new Promise<void>((r) => (to.signal.aborted ? r() : to.signal.addEventListener('abort', () => r(), { once: true })));
  let sub: { offset: number; unsubscribe: () => void } | undefined;
  return (async () => {
    try {
      // The logical offset the files are read from (undefined: the start, or the tail).
      let pos: number | undefined;
      for (;;) {
        overflowed = new Promise<void>((r) => (overflowResolve = r));
        catchingUp = true;
        // 1. From the files while far behind (they are the queue), in steps up to the size seen at each step.
        for (;;) {
          const size = live.size();
          const range = { ...o, from: pos, tail: pos === undefined ? o.tail : undefined };
          if (size === undefined) {
            await read(await live.open(), { ...range, until: undefined }, fmt, writeAwait); // the run is over: the log is whole
            return;
          }
          if (size - (pos ?? 0) <= NEAR) {
            // 2. Close enough: subscribe, read the rest up to the offset the subscription starts at, and meanwhile
            // queue what is appended.
            const gen = ++generation;
            sub = await live.subscribe(o, fmt, (b, end, release) => onBatch(gen, b, end, release), () => endResolve());
            if (!sub) {
              await read(await live.open(), { ...range, until: undefined }, fmt, writeAwait);
              return;
            }
            handedEnd = sub.offset;
            await read(await live.open(), { ...range, until: sub.offset }, fmt, writeAwait);
            break;
          }
          await read(await live.open(), { ...range, until: size }, fmt, writeAwait);
          pos = size;
          if (to.signal.aborted) return;
        }
        // 3. Live: appends are handed on as they come, until the run ends.
        catchingUp = false;
        await pump();
        await Promise.race([ended, overflowed, aborted]);
        if (to.signal.aborted) return;
        if (resumeAt === undefined) break;
        // Overflowed: back to the files from what was handed on, then live again when close to the end.
        await pumping;
        sub.unsubscribe();
        sub = undefined;
        pos = resumeAt;
        resumeAt = undefined;
      }
      while (pumping || queue.length) await pump();
    } finally {
      sub?.unsubscribe();
      for (const q of queue.splice(0)) q.release?.();
    }
  })();
}
