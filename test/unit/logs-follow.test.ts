// logs -f of a running container: catch-up from the files, then live appends; a reader too far behind goes back to
// the files from the exact (logical) offset where what it was handed ends, then live again.
import { BATCH, FollowBatcher, followLogs, formatAppended, LiveBatch, LogReader } from '../../src/services/logs-follow';
import type { LogReadOptions, LogStreamFormat } from '../../src/types/logs';
import type { LogAppendListener } from '../../src/runtime/jsonfile';

const T = '2026-01-01T00:00:01.5Z';
const fmt = { framed: false, timestamps: false, details: false };
const BIG = 40 << 20;

const tick = () => new Promise((r) => setImmediate(r));

/** The capture thread's side of a follower (FollowBatcher), in-process: batch buffers reused once released. */
function capture(o: LogReadOptions, f: LogStreamFormat, onBatch: LiveBatch) {
  const spare: Buffer[] = [];
  const batcher = new FollowBatcher(o, f, ' ', (need) => (need <= BATCH && spare.pop()) || Buffer.alloc(Math.max(need, BATCH)), (b, used, end) =>
    onBatch(b.subarray(0, used), end, () => spare.push(b)),
  );
  return batcher;
}

function harness(writable: () => boolean) {
  let batcher: FollowBatcher | undefined;
  let onEnd!: () => void;
  const reads: LogReadOptions[] = [];
  const out: string[] = [];
  let drain!: () => void;
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));
  let subscriptions = 0;
  let size = BIG; // the log is 40 MiB (too far to go live) before the first read, then 40 MiB + 10: near its end
  const read: LogReader = async (_src, o, _fmt, write, follow) => {
    size = Math.max(size, BIG + 10);
    reads.push(o);
    if (o.until === BIG + 10) await gate; // the rest up to the subscription: held until the test opens it
    await write(Buffer.from(o.until === BIG ? '[catch-up]' : o.until === BIG + 10 ? '[rest]' : `[file from ${(o.from ?? 0) - BIG}]`));
    if (follow) await follow.stopped;
  };
  const ac = new AbortController();
  const done = followLogs(
    { stdout: true, stderr: false },
    fmt,
    {
      size: () => size,
      subscribe: async (so, sf, onBatch, e) => {
        batcher = capture(so, sf, onBatch);
        onEnd = e;
        subscriptions++;
        return { offset: size, unsubscribe: () => undefined };
      },
      open: () => ({ files: [] }),
    },
    read,
    {
      write: (b) => {
        out.push(b.toString());
        return writable();
      },
      drained: () => new Promise<void>((r) => (drain = r)),
      signal: ac.signal,
    },
  )!;
  const subscribed = async () => {
    while (!batcher) await tick();
  };
  return {
    done,
    reads,
    out,
    subscribed,
    openGate,
    subscriptions: () => subscriptions,
    setSize: (n: number) => (size = n),
    append: (...a: Parameters<LogAppendListener>) => batcher!.append(...a),
    /** what the batch delay would do */
    flush: () => batcher!.flush(),
    end: () => {
      batcher!.flush();
      onEnd();
    },
    drain: () => drain(),
  };
}

test('catch-up up to the subscription offset, then appends as they come (unwanted streams skipped), until the end', async () => {
  const h = harness(() => true);
  await h.subscribed();
  h.append('stdout', Buffer.from('early\n'), T, BIG + 20); // while the rest is read: queued
  h.flush();
  h.openGate();
  await tick();
  h.append('stdout', Buffer.from('a\n'), T, BIG + 30);
  h.append('stderr', Buffer.from('not wanted\n'), T, BIG + 40);
  h.append('stdout', Buffer.from('b'), T, BIG + 50);
  h.end();
  await h.done;
  expect(h.reads.map((o) => [o.from, o.until, o.tail])).toEqual([
    [undefined, BIG, undefined],
    [BIG, BIG + 10, undefined],
  ]);
  // what was appended during the catch-up is handed on when it ends; later appends in one batch (a frame per entry
  // when framed: the capture thread's formatting)
  expect(h.out).toEqual(['[catch-up]', '[rest]', 'early\n', 'a\nb']);
});

test('a reader more than 64 MiB behind goes back to the files from the end of what it was handed, then live again', async () => {
  let saturated = false;
  const h = harness(() => !saturated);
  await h.subscribed();
  h.openGate();
  await tick();
  h.append('stdout', Buffer.from('one\n'), T, BIG + 200);
  saturated = true;
  h.append('stdout', Buffer.from('two\n'), T, BIG + 300);
  const big = Buffer.alloc(1 << 20, 0x61);
  // the first big entry makes the queue long enough to hand on: the two lines go, and the destination is now full;
  // the rest is queued until the queue overflows
  h.setSize(BIG + 1000);
  for (let i = 0; i < 66; i++) h.append('stdout', big, T, BIG + 400 + i);
  h.append('stdout', Buffer.from('ignored: read from the files\n'), T, BIG + 999);
  await tick();
  saturated = false;
  h.drain();
  while (h.subscriptions() < 2) await tick();
  await tick();
  h.append('stdout', Buffer.from('live again\n'), T, BIG + 1010);
  h.end();
  await h.done;
  expect(h.reads.map((o) => [o.from, o.until])).toEqual([
    [undefined, BIG],
    [BIG, BIG + 10],
    [BIG + 300, BIG + 1000],
  ]);
  expect(h.out).toEqual(['[catch-up]', '[rest]', 'one\ntwo\n', '[file from 300]', 'live again\n']);
});

test('a small file: subscribed at once, one read from the tail up to the subscription offset', async () => {
  let b!: FollowBatcher;
  let onEnd!: () => void;
  const reads: LogReadOptions[] = [];
  const out: string[] = [];
  const done = followLogs(
    { stdout: true, stderr: true, tail: 5 },
    fmt,
    { size: () => 1000, subscribe: async (so, sf, onBatch, e) => ((b = capture(so, sf, onBatch)), (onEnd = e), { offset: 1000, unsubscribe: () => undefined }), open: () => ({ files: [] }) },
    async (_f, o, _fmt, write) => {
      reads.push(o);
      await write(Buffer.from('[file]'));
    },
    { write: (b) => (out.push(b.toString()), true), drained: async () => undefined, signal: new AbortController().signal },
  )!;
  await tick();
  expect(b).toBeDefined();
  b.append('stderr', Buffer.from('live\n'), T, 1010);
  b.flush();
  onEnd();
  await done;
  expect(reads.map((o) => [o.from, o.until, o.tail])).toEqual([[undefined, 1000, 5]]);
  expect(out).toEqual(['[file]', 'live\n']);
});

test('appended entries are formatted like the file path: a frame per line, nine-digit timestamps, details, invalid UTF-8 as U+FFFD', () => {
  // a frame per entry (line), as the engine frames a log's entries
  expect(formatAppended('stderr', Buffer.from('x\ny'), T, { framed: true, timestamps: false, details: false })).toEqual(Buffer.from([2, 0, 0, 0, 0, 0, 0, 2, 0x78, 0x0a, 2, 0, 0, 0, 0, 0, 0, 1, 0x79]));
  expect(formatAppended('stdout', Buffer.from('x\ny'), T, { framed: false, timestamps: true, details: true }).toString()).toBe('2026-01-01T00:00:01.500000000Z  x\n2026-01-01T00:00:01.500000000Z  y');
  expect(formatAppended('stdout', Buffer.from([0x61, 0xff, 0x0a]), T, fmt)).toEqual(Buffer.from([0x61, 0xef, 0xbf, 0xbd, 0x0a]));
});

test('live batches are copied out of the capture read buffer, and a batch buffer is reused only once the destination is done with it', async () => {
  let b!: FollowBatcher;
  let onEnd!: () => void;
  const held: Buffer[] = []; // what the destination still holds (not copied), released at the end
  const pending: (() => void)[] = [];
  const released: Buffer[] = [];
  const done = followLogs(
    { stdout: true, stderr: true },
    { framed: true, timestamps: false, details: false },
    { size: () => 0, subscribe: async (so, sf, onBatch, e) => ((b = capture(so, sf, onBatch)), (onEnd = e), { offset: 0, unsubscribe: () => undefined }), open: () => ({ files: [] }) },
    async () => undefined,
    {
      write: (b, release) => {
        held.push(b);
        if (release) pending.push(release);
        return true;
      },
      drained: async () => undefined,
      signal: new AbortController().signal,
    },
  )!;
  await tick();
  const readBuffer = Buffer.alloc(100 << 10);
  const expected: Buffer[] = [];
  for (let i = 0; i < 40; i++) {
    // the capture reuses its read buffer for every read
    readBuffer.fill(0x61 + (i % 26));
    b.append(i % 2 ? 'stderr' : 'stdout', readBuffer, T, (i + 1) * 1000, true);
    const header = Buffer.from([i % 2 ? 2 : 1, 0, 0, 0, 0, 0, 0, 0]);
    header.writeUInt32BE(readBuffer.length, 4);
    expected.push(header, Buffer.from(readBuffer));
    if (i === 20) {
      // the destination is done with what it was handed so far: those buffers may be reused from now on
      released.push(...held.map((b) => Buffer.from(b)));
      pending.splice(0).forEach((r) => r());
    }
  }
  b.flush();
  onEnd();
  await done;
  const got = Buffer.concat([...released, ...held.slice(released.length)]);
  expect(got.equals(Buffer.concat(expected))).toBe(true);
});

test('with acknowledgements, a partial batch waits while an earlier one is being written out; a full one does not', async () => {
  const emitted: { text: string; end: number }[] = [];
  const b = new FollowBatcher({ stdout: true, stderr: true }, fmt, ' ', (need) => Buffer.alloc(Math.max(need, BATCH)), (buf, used, end) => emitted.push({ text: buf.toString('latin1', 0, used), end }), true);
  const delay = () => new Promise((r) => setTimeout(r, 10));
  b.append('stdout', Buffer.from('a\n'), T, 10);
  await delay();
  expect(emitted).toEqual([{ text: 'a\n', end: 10 }]); // nothing in flight: after the delay
  b.append('stdout', Buffer.from('b\n'), T, 20);
  await delay();
  expect(emitted.length).toBe(1); // 'a' not written out yet: 'b' waits
  b.append('stdout', Buffer.from('c\n'), T, 30);
  b.released();
  expect(emitted[1]).toEqual({ text: 'b\nc\n', end: 30 }); // at once when 'a' is done
  b.append('stdout', Buffer.alloc(BATCH, 0x78), T, 30 + BATCH);
  expect(emitted[2].end).toBe(30 + BATCH); // full: goes though 'b\nc\n' is in flight
  b.append('stdout', Buffer.from('d\n'), T, 40 + BATCH);
  await delay();
  expect(emitted.length).toBe(3);
  b.released();
  expect(emitted.length).toBe(3); // one still in flight
  b.released();
  expect(emitted[3]).toEqual({ text: 'd\n', end: 40 + BATCH });
  b.released();
  b.append('stdout', Buffer.from('e\n'), T, 50 + BATCH);
  b.flush(); // the end of the run: whatever is in flight
  expect(emitted[4].text).toBe('e\n');
  b.close();
});
