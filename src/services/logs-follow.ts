// `logs -f` of a running container: the file is read (and decoded) until the reader is near its end, then the
// entries are passed on as the capture appends them, with no second trip through the json-file format. A client
// that falls more than QUEUE_LIMIT behind is switched back to reading the file from where it stopped, so the
// capture never waits for it and nothing is lost or sent twice. Positions are logical offsets (see LogFileRef), so
// rotations of the files underneath are no concern here.
import { frameLines, framedLinesLength, streamType, writeFramedLines } from '../translate/stream';
import { asLogged } from '../runtime/jsonlog';
import { detailsPrefix, fixedNano } from './logs';
import { LogFollow, timeNs } from '../runtime/logread';
import type { LogSource } from '../runtime/logfiles';
import type { LogSink, LogReadOptions, LogStreamFormat } from '../types/logs';
import type { StreamName } from '../types/io';
import type { LogAppendListener } from '../runtime/jsonfile';

const QUEUE_LIMIT = 64 << 20;
/** How far behind the end of the file a reader subscribes to the live appends. */
const NEAR = 32 << 20;

export type LogReader = (src: LogSource, o: LogReadOptions, fmt: LogStreamFormat, write: (b: Buffer) => void | Promise<void>, follow?: LogFollow) => Promise<void>;

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

/** Live appends are handed on in batches of up to this many bytes (a socket write and a client read each) ... */
const BATCH = 1 << 20;
/** Batch buffers the destination is done with, for the next batches of any follower (a follower printing at full
 *  speed would otherwise allocate its whole output anew, and collecting that garbage cost more than the rest). */
const spareBatches: Buffer[] = [];
const SPARE_MAX = 4;
let dropSpares: NodeJS.Timeout | undefined;
const newBatch = (need: number): Buffer => (need <= BATCH && spareBatches.pop()) || Buffer.allocUnsafe(Math.max(need, BATCH));
const recycle = (b: Buffer) => () => {
  if (b.length !== BATCH || spareBatches.length >= SPARE_MAX) return;
  spareBatches.push(b);
  // Given back to the allocator once no follower has needed them for a while (an idle berth keeps none).
  dropSpares?.refresh();
  dropSpares ??= setTimeout(() => {
    spareBatches.length = 0;
    dropSpares = undefined;
  }, 10_000).unref();
};
/** ... or this long after the first of them: a follower sees a line within a few milliseconds, and a container
 *  printing short lines quickly costs one write per batch instead of one per read of its output. */
const BATCH_DELAY_MS = 2;

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
    subscribe(fn: LogAppendListener, onEnd: () => void): { offset: number; attrs?: string; unsubscribe: () => void } | undefined;
    /** The log's files as of now (read, then closed, by `read`). */
    open(): LogSource;
  },
  read: LogReader,
  to: LogSink,
): Promise<void> | undefined {
  if (live.size() === undefined) return undefined;
  let endResolve!: () => void;
  const ended = new Promise<void>((r) => (endResolve = r));
  let overflowResolve!: () => void;
  let overflowed!: Promise<void>;
  // Batches of appended entries not handed on yet, framed, copied in as they come (the capture's read buffer is
  // reused at once), with the logical offset after them.
  const queue: { b: Buffer; used: number; end: number }[] = [];
  let queued = 0; // their bytes
  let catchingUp = true;
  let pumping: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let resumeAt: number | undefined; // set on overflow: the logical offset after the last bytes handed on
  let handedEnd = 0;
  const NONE = Buffer.alloc(0);
  let prefix = ''; // the details prefix: the entries' attributes

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
      const payload = appendedPayload(content, time, fmt, !!valid, prefix);
      // a frame per entry (line), as the engine frames a log's entries
      const need = fmt.framed ? framedLinesLength(payload) : payload.length;
      if (!last || last.used + need > last.b.length) queue.push((last = { b: newBatch(need), used: 0, end }));
      if (fmt.framed) writeFramedLines(last.b, last.used, streamType(stream), payload);
      else payload.copy(last.b, last.used);
      last.used += need;
      queued += need;
    } else if (!last) queue.push((last = { b: NONE, used: 0, end }));
    last.end = end;
    if (queued > QUEUE_LIMIT) {
      // Too far behind: drop what waits and read it from the files instead.
      resumeAt = handedEnd;
      queue.length = 0;
      queued = 0;
      overflowResolve();
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
  let sub: { offset: number; attrs?: string; unsubscribe: () => void } | undefined;
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
            await read(live.open(), { ...range, until: undefined }, fmt, writeAwait); // the run is over: the log is whole
            return;
          }
          if (size - (pos ?? 0) <= NEAR) {
            // 2. Close enough: subscribe (no await since the size was read), read the rest up to the offset the
            // subscription starts at, and meanwhile queue what is appended.
            sub = live.subscribe(onAppend, () => endResolve());
            if (!sub) {
              await read(live.open(), { ...range, until: undefined }, fmt, writeAwait);
              return;
            }
            prefix = detailsPrefix(sub.attrs);
            handedEnd = sub.offset;
            await read(live.open(), { ...range, until: sub.offset }, fmt, writeAwait);
            break;
          }
          await read(live.open(), { ...range, until: size }, fmt, writeAwait);
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
      if (timer) clearTimeout(timer);
    }
  })();
}
