// `logs -f` of a running container: the file is read (and decoded) until the reader is near its end, then the
// entries are passed on as the capture appends them, with no second trip through the json-file format. A client
// that falls more than QUEUE_LIMIT behind is switched back to reading the file from where it stopped, so the
// capture never waits for it and nothing is lost or sent twice.
import type { LogAppendListener } from '../runtime/io';
import { asLogged, StreamName } from '../runtime/jsonlog';
import { fixedNano, LogFollow, LogReadOptions, LogStreamFormat, timeNs } from './logs';

const QUEUE_LIMIT = 64 << 20;
/** How far behind the end of the file a reader subscribes to the live appends. */
const NEAR = 32 << 20;

export type LogReader = (file: string, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer) => void | Promise<void>, follow?: LogFollow) => Promise<void>;

export interface FollowTarget {
  /** Hands bytes on; false when the destination is saturated (then wait for `drained`). `done` (if given) is called
   *  once the destination no longer needs `b`. */
  write(b: Buffer, done?: () => void): boolean;
  drained(): Promise<void>;
  signal: AbortSignal;
}

/** The payload of the entries appended in one write: the timestamp and details prefixes per entry, unframed. */
function appendedPayload(content: Buffer, time: string, fmt: LogStreamFormat, valid: boolean): Buffer {
  const body = valid ? content : asLogged(content);
  if (!fmt.timestamps && !fmt.details) return body;
  const prefix = Buffer.from((fmt.timestamps ? `${fixedNano(time)} ` : '') + (fmt.details ? ' ' : '')); // berth writes no attributes
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

/** Writes one multiplexed frame header (stream, length) at `at`. */
function frameHeader(out: Buffer, at: number, stream: StreamName, length: number): void {
  out[at] = stream === 'stdout' ? 1 : 2;
  out[at + 1] = out[at + 2] = out[at + 3] = 0;
  out.writeUInt32BE(length, at + 4);
}

/** Frames (or not) the entries appended in one write, with the timestamp and details prefixes per entry. */
export function formatAppended(stream: StreamName, content: Buffer, time: string, fmt: LogStreamFormat, valid = false): Buffer {
  const body = appendedPayload(content, time, fmt, valid);
  if (!fmt.framed) return body;
  const out = Buffer.allocUnsafe(8 + body.length);
  frameHeader(out, 0, stream, body.length);
  body.copy(out, 8);
  return out;
}

/** Live appends are handed on in batches of up to this many bytes ... */
const BATCH = 256 << 10;
/** Batch buffers the destination is done with, for the next batches of any follower (a follower printing at full
 *  speed would otherwise allocate its whole output anew, and collecting that garbage cost more than the rest). */
const spareBatches: Buffer[] = [];
const SPARE_MAX = 16;
const newBatch = (need: number): Buffer => (need <= BATCH && spareBatches.pop()) || Buffer.allocUnsafe(Math.max(need, BATCH));
const recycle = (b: Buffer) => () => {
  if (b.length === BATCH && spareBatches.length < SPARE_MAX) spareBatches.push(b);
};
/** ... or this long after the first of them: a follower sees a line within a few milliseconds, and a container
 *  printing short lines quickly costs one write per batch instead of one per read of its output. */
const BATCH_DELAY_MS = 2;

/**
 * Follows `file` of a running container whose appends `live.subscribe` delivers. Returns undefined, having done
 * nothing, when there is nothing live to follow (the caller then follows the file).
 */
export function followLogs(
  file: string,
  o: LogReadOptions,
  fmt: LogStreamFormat,
  live: {
    /** The log's size now (always at an entry boundary); undefined once the run's output is complete. */
    size(): number | undefined;
    subscribe(fn: LogAppendListener, onEnd: () => void): { offset: number; unsubscribe: () => void } | undefined;
  },
  read: LogReader,
  to: FollowTarget,
): Promise<void> | undefined {
  if (live.size() === undefined) return undefined;
  let endResolve!: () => void;
  const ended = new Promise<void>((r) => (endResolve = r));
  let overflowResolve!: () => void;
  const overflowed = new Promise<void>((r) => (overflowResolve = r));
  // Batches of appended entries not handed on yet, framed, copied in as they come (the capture's read buffer is
  // reused at once), with the file offset after them.
  const queue: { b: Buffer; used: number; end: number }[] = [];
  let queued = 0; // their bytes
  const headerBytes = fmt.framed ? 8 : 0;
  let catchingUp = true;
  let pumping: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let resumeAt: number | undefined; // set on overflow: the file offset after the last bytes handed on
  let handedEnd = 0;
  const NONE = Buffer.alloc(0);

  // Hands queued entries on in order, waiting for the destination to drain; one pump at a time.
  const pump = (): Promise<void> => {
    if (pumping) return pumping;
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    const p: Promise<void> = (async () => {
      while (queue.length && resumeAt === undefined && !to.signal.aborted) {
        const item = queue.shift()!;
        queued -= item.used;
        const ok = !item.used || to.write(item.b.subarray(0, item.used), recycle(item.b));
        handedEnd = item.end;
        if (!ok) await to.drained();
      }
    })().finally(() => {
      if (pumping === p) pumping = undefined;
    });
    pumping = p;
    return p;
  };

  const onAppend: LogAppendListener = (stream, content, time, end, valid) => {
    if (resumeAt !== undefined) return;
    const wanted = (stream === 'stdout' ? o.stdout : o.stderr) && (o.sinceNs === undefined || timeNs(time) >= o.sinceNs);
    let last = queue[queue.length - 1];
    if (wanted) {
      const payload = appendedPayload(content, time, fmt, !!valid);
      const need = headerBytes + payload.length;
      if (!last || last.used + need > last.b.length) queue.push((last = { b: newBatch(need), used: 0, end }));
      if (headerBytes) frameHeader(last.b, last.used, stream, payload.length);
      payload.copy(last.b, last.used + headerBytes);
      last.used += need;
      queued += need;
    } else if (!last) queue.push((last = { b: NONE, used: 0, end }));
    last.end = end;
    if (queued > QUEUE_LIMIT) {
      // Too far behind: drop what waits and read it from the file instead.
      resumeAt = handedEnd;
      queue.length = 0;
      queued = 0;
      overflowResolve(); // (still subscribed: the end of the run ends the file follow too)
      return;
    }
    if (catchingUp || pumping) return; // handed on when the catch-up ends, or by the running pump
    if (queued >= BATCH) void pump();
    else
      timer ??= setTimeout(() => {
        timer = undefined;
        void pump();
      }, BATCH_DELAY_MS);
  };
  const writeAwait = async (b: Buffer) => {
    if (!to.write(b)) await to.drained();
  };
  const aborted = new Promise<void>((r) => (to.signal.aborted ? r() : to.signal.addEventListener('abort', () => r(), { once: true })));
  let sub: { offset: number; unsubscribe: () => void } | undefined;
  return (async () => {
    try {
      // 1. From the file while far behind (the file is the queue), in steps up to the size seen at each step.
      let pos: number | undefined;
      for (;;) {
        const size = live.size();
        const range = { ...o, from: pos, tail: pos === undefined ? o.tail : undefined };
        if (size === undefined) {
          await read(file, { ...range, until: undefined }, fmt, writeAwait); // the run is over: the file is whole
          return;
        }
        if (size - (pos ?? 0) <= NEAR) {
          // 2. Close enough: subscribe (no await since the size was read), read the rest up to the offset the
          // subscription starts at, and meanwhile queue what is appended.
          sub = live.subscribe(onAppend, () => endResolve());
          if (!sub) {
            await read(file, { ...range, until: undefined }, fmt, writeAwait);
            return;
          }
          handedEnd = sub.offset;
          await read(file, { ...range, until: sub.offset }, fmt, writeAwait);
          break;
        }
        await read(file, { ...range, until: size }, fmt, writeAwait);
        pos = size;
        if (to.signal.aborted) return;
      }
      // 3. Live: appends are handed on as they come, until the run ends.
      catchingUp = false;
      await pump();
      await Promise.race([ended, overflowed, aborted]);
      if (to.signal.aborted) return;
      if (resumeAt !== undefined) {
        await read(file, { ...o, tail: undefined, from: resumeAt, until: undefined }, fmt, writeAwait, { stopped: ended, signal: to.signal });
        return;
      }
      while (pumping || queue.length) await pump();
    } finally {
      sub?.unsubscribe();
      if (timer) clearTimeout(timer);
    }
  })();
}
