// Read coalescing on the capture thread: a sustained stream of short reads is read later (a sleep once per turn of
// the loop, until the pipe should hold the target); a read after a gap, a full read or a read of the target asks
// for none.
import { ReadCoalescing, type ReadPace } from '../../src/services/read-coalescing';

const KiB = 1024;

function harness(o: ConstructorParameters<typeof ReadCoalescing>[0] = {}) {
  let clock = 1000;
  const sleeps: number[] = [];
  let turnEnd: (() => void) | undefined;
  const co = new ReadCoalescing(o, {
    now: () => clock,
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    later: (f) => {
      if (turnEnd) throw new Error('a second end of turn scheduled');
      turnEnd = f;
    },
  });
  return {
    co,
    sleeps,
    advance: (ms: number) => (clock += ms),
    /** The loop's turn ends: what the reads asked for is slept. */
    endTurn: () => {
      const f = turnEnd;
      turnEnd = undefined;
      f?.();
    },
    pending: () => turnEnd !== undefined,
  };
}

/** A stream read 1 KiB after a gap, then 16 KiB 0.1 ms later (160 KiB a ms), each turn ended. */
function streamAt160KiBPerMs(h: ReturnType<typeof harness>): ReadPace {
  const p = h.co.pace();
  h.co.read(p, 1 * KiB);
  h.endTurn();
  h.advance(0.1);
  h.co.read(p, 16 * KiB);
  h.endTurn();
  return p;
}

test('a read now and then (a line, a shell) asks for no sleep', () => {
  const h = harness();
  const p = h.co.pace();
  for (let i = 0; i < 5; i++) {
    h.advance(50);
    h.co.read(p, 64);
    h.endTurn();
  }
  // reads 1.5 ms apart: not a sustained stream
  for (let i = 0; i < 5; i++) {
    h.advance(1.5);
    h.co.read(p, 4 * KiB);
    h.endTurn();
  }
  expect(h.sleeps).toEqual([]);
});

test('a sustained stream of short reads sleeps until the pipe should hold the target, at most the longest sleep', () => {
  const h = harness({ target: 32 * KiB, maxSleepMs: 0.5 });
  const p: ReadPace = h.co.pace();
  h.co.read(p, 16 * KiB); // the first read: after a gap
  h.endTurn();
  expect(h.sleeps).toEqual([]);
  // 16 KiB in 0.1 ms: 160 KiB a ms, so 32 KiB in 0.2 ms; less what a sleep lasts beyond what is asked
  h.advance(0.1);
  h.co.read(p, 16 * KiB);
  h.endTurn();
  expect(h.sleeps).toHaveLength(1);
  expect(h.sleeps[0]).toBeCloseTo(0.2 - 0.065, 5);
  // the time spent on the read itself counts: handled 0.05 ms later, the sleep is that much shorter (32 KiB in
  // the 0.135 ms slept and 0.065 more: the same rate)
  h.advance(0.065);
  h.co.read(p, 32 * KiB - 1);
  h.advance(0.05);
  h.endTurn();
  expect(h.sleeps[1]).toBeCloseTo(0.2 - 0.065 - 0.05, 2);
  // a slow stream (1 KiB in 0.9 ms): the longest sleep
  h.advance(0.9);
  h.co.read(p, 1 * KiB);
  h.advance(0.9);
  h.co.read(p, 1 * KiB);
  h.endTurn();
  expect(h.sleeps[2]).toBeCloseTo(0.5 - 0.065, 5);
});

test('a full read, or one of the target, means no sleep in its turn, whatever the other streams ask', () => {
  const h = harness({ target: 32 * KiB });
  const a = h.co.pace();
  const b = h.co.pace();
  h.co.read(a, 8 * KiB);
  h.co.read(b, 8 * KiB);
  h.endTurn();
  h.advance(0.1);
  h.co.read(a, 8 * KiB); // asks for a sleep
  h.co.read(b, 64 * KiB); // the pipe was full: the writer may have waited
  h.endTurn();
  expect(h.sleeps).toEqual([]);
  h.advance(0.1);
  h.co.read(b, 40 * KiB); // as much as asked already
  h.co.read(a, 8 * KiB);
  h.endTurn();
  expect(h.sleeps).toEqual([]);
  // the next turn is one of its own: a sleep again
  h.advance(0.1);
  h.co.read(a, 8 * KiB);
  h.endTurn();
  expect(h.sleeps).toHaveLength(1);
});

test('one sleep a turn, until the earliest time any read of the turn asked for', () => {
  const h = harness({ target: 32 * KiB, maxSleepMs: 1 });
  const fast = h.co.pace();
  const slow = h.co.pace();
  h.co.read(fast, 1 * KiB);
  h.co.read(slow, 1 * KiB);
  h.endTurn();
  h.advance(0.2);
  h.co.read(slow, 4 * KiB); // 20 KiB a ms: 1.6 ms to the target, so the longest sleep
  h.co.read(fast, 16 * KiB); // 80 KiB a ms: 0.4 ms
  expect(h.pending()).toBe(true);
  h.endTurn();
  expect(h.sleeps).toHaveLength(1);
  expect(h.sleeps[0]).toBeCloseTo(0.4 - 0.065, 5);
});

test('a stream that slows down is trusted half at a time (its pipe is not let fill on one slow reading)', () => {
  const h = harness({ target: 32 * KiB, maxSleepMs: 1 });
  const p = streamAt160KiBPerMs(h);
  h.advance(0.2);
  h.co.read(p, 2 * KiB); // 10 KiB a ms measured; taken as 80
  h.endTurn();
  expect(h.sleeps[1]).toBeCloseTo(0.4 - 0.065, 5);
});

test("a read after a sleep that finds the pipe full halves the stream's target; short reads grow it back by 1 KiB", () => {
  const h = harness({ target: 32 * KiB, maxSleepMs: 1 });
  const p = streamAt160KiBPerMs(h); // sleeps 0.2 ms less the oversleep
  expect(h.sleeps[0]).toBeCloseTo(0.2 - 0.065, 5);
  h.advance(0.3);
  h.co.read(p, 64 * KiB); // full after the sleep: 16 KiB from now on
  h.endTurn();
  expect(p.target).toBe(16 * KiB);
  h.advance(0.05);
  h.co.read(p, 8 * KiB); // a short read: 17 KiB; the rate (the full read's 64 KiB in 0.435 ms, ~147 KiB a ms) kept
  h.endTurn();
  expect(p.target).toBe(17 * KiB);
  expect(h.sleeps[1]).toBeCloseTo((17 * KiB) / p.rate - 0.065, 5);
  // a full read after that sleep halves it again (8.5 KiB); a full read with no sleep before it (the thread was late
  // by itself) leaves the target as it is
  h.advance(0.2);
  h.co.read(p, 64 * KiB);
  h.advance(0.05);
  h.co.read(p, 64 * KiB);
  h.endTurn();
  expect(p.target).toBeLessThanOrEqual(17 * KiB);
  expect(p.target).toBeGreaterThanOrEqual(8 * KiB);
  expect(p.target).toBe(8.5 * KiB);
});
