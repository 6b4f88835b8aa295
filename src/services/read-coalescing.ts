// Read coalescing on the capture thread (docs/performance.md, "The log path"). Each FIFO read is a json-file write, a
// pass through the encoder and the follower's batcher, and a wake-up; behind a writer of a few KiB per write the
// thread wakes for every copy the shim makes (14-16 KiB reads in bench:streams' follow, where the same bytes from a
// writer alone are read 56 KiB at a time). The json-file write stays before the next read (nothing the shim handed
// over is lost when berth is killed), so reads are made larger only by reading later: after a short read of a
// sustained stream the thread sleeps, once per turn of its loop (after every fd that was ready has been read), until
// the pipe should hold about `target` bytes at the rate it has been filling, and at most `maxSleepMs`.
// - Nothing is read later than that: a read of a stream read last more than `sustainedMs` ago (a line now and then, a
//   shell) asks for no sleep, so it and what follows it soon are handled at once; a sustained stream's output, or a
//   quiet one's while another streams, is read at most `maxSleepMs` later than without.
// - The writer is not held back: a short read means the pipe was never full since the last one (only reads empty
//   it); a full read, or one of the target (the thread keeps up only just), means no sleep in that turn; the target
//   is half the pipe, so a writer twice as fast as estimated still does not fill it. A writer that speeds up more
//   than that during a sleep waits for the rest of that sleep, once. A stream whose read after a sleep finds the pipe
//   full (the sleep, or the wait for a core after it, was too long: on a loaded machine it is) has its target halved,
//   down to 4 KiB, grown back by 1 KiB a short read: under load the writer waits on a full pipe about as often as
//   without coalescing, with a third to a half of the reads. (The pipe is 64 KiB: berth opens the FIFOs as
//   root, whom the kernel's per-user pipe limits do not shrink; a pipe under the target would make the writer wait.)
// The sleep is an Atomics.wait, the only sub-millisecond wait a Node thread has (timers count whole milliseconds, in
// which a fast writer fills the 64 KiB pipe several times over; Node cannot make the pipe larger).

/** What one FIFO's reads have looked like. */
export interface ReadPace {
  /** When the last read was handled (ms, performance.now()). */
  last: number;
  /** The rate the pipe has been filling at (bytes per ms), as estimated from the reads. */
  rate: number;
  /** What this stream's reads should find (bytes): halved each time a read after a sleep finds the pipe full (the
   *  sleep, or the wait for a core after it, was too long: on a loaded machine it is), grown back by 1 KiB a short
   *  read up to the coalescing's target. */
  target: number;
  /** The stream asked for the sleep made after its last read. */
  slept: boolean;
}

export interface CoalescingOptions {
  /** What a read should find in the pipe (bytes): half the pipe by default, so that a writer twice as fast as
   *  estimated still does not fill it. */
  target?: number;
  /** The longest sleep (ms). */
  maxSleepMs?: number;
  /** A read this long after the last one is not part of a sustained stream (ms). */
  sustainedMs?: number;
  /** A read of this many bytes or more found the pipe (nearly) full. */
  full?: number;
}

/** The clock, the sleep and the end of the turn (replaced in the unit tests). */
export interface CoalescingHooks {
  now(): number;
  sleep(ms: number): void;
  later(f: () => void): void;
}

/** Sleeps shorter than this are not worth a system call (ms). */
const MIN_SLEEP_MS = 0.03;
/** How much longer than asked a sleep lasts (ms): the kernel's timer slack for a thread (50 µs) and the wake-up.
 *  Measured on the development machine, idle: 0.1 ms asked, 0.167 slept (median). */
const OVERSLEEP_MS = 0.065;
/** A stream's target is not halved below this (bytes). */
const MIN_TARGET = 4 << 10;

export class ReadCoalescing {
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  private readonly target: number;
  private readonly maxSleepMs: number;
  private readonly sustainedMs: number;
  private readonly full: number;
  /** The earliest time a read of this turn asked to be woken at; 0: no sleep in this turn. */
  private wakeAt = Infinity;
  private scheduled = false;
  /** The streams that asked for this turn's sleep. */
  private asking: ReadPace[] = [];

  private readonly hooks: CoalescingHooks;

  constructor(o: CoalescingOptions = {}, hooks?: CoalescingHooks) {
    this.hooks = hooks ?? { now: () => performance.now(), sleep: (ms) => void Atomics.wait(this.cell, 0, 0, ms), later: setImmediate };
    this.target = o.target ?? 32 << 10;
    this.maxSleepMs = o.maxSleepMs ?? 0.5;
    this.sustainedMs = o.sustainedMs ?? 1;
    this.full = o.full ?? 60 << 10;
  }

  pace(): ReadPace {
    return { last: -Infinity, rate: 0, target: this.target, slept: false };
  }

  /**
   * A read of `n` bytes was handled (written to the log, handed to followers): when its stream's next read should be
   * made, and a sleep until then (or the earliest such time of this turn's reads) after this turn's reads.
   */
  read(p: ReadPace, n: number): void {
    const t = this.hooks.now();
    const dt = t - p.last;
    p.last = t;
    const slept = p.slept;
    p.slept = false;
    if (n >= this.full) {
      // the writer may have waited on a full pipe: read again as soon as it is readable, and if a sleep came before,
      // sleep less from now on
      p.rate = Math.max(p.rate, n / Math.max(dt, 0.001));
      if (slept) p.target = Math.max(p.target / 2, MIN_TARGET);
      this.wakeAt = 0;
      return this.atTurnEnd();
    }
    p.target = Math.min(p.target + 1024, this.target);
    if (!(dt < this.sustainedMs)) {
      // the first read after a gap: handled at once, and no sleep for it
      p.rate = 0;
      return;
    }
    // what the pipe took since the last read, over that time (it was never full: the read was short); a faster
    // reading counts at once, a slower one half
    const rate = n / Math.max(dt, 0.001);
    p.rate = rate >= p.rate ? rate : Math.max(rate, p.rate / 2);
    if (n >= p.target) {
      // the reads are as large as asked already (the thread keeps up only just): no sleep in this turn
      this.wakeAt = 0;
      return this.atTurnEnd();
    }
    const at = t + Math.min(p.target / p.rate, this.maxSleepMs) - OVERSLEEP_MS;
    if (at < this.wakeAt) this.wakeAt = at;
    this.asking.push(p);
    this.atTurnEnd();
  }

  private atTurnEnd(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.hooks.later(this.turnEnd);
  }

  /** After every read of this turn of the loop: the sleep the reads asked for, if any. */
  private readonly turnEnd = (): void => {
    this.scheduled = false;
    const ms = this.wakeAt - this.hooks.now();
    this.wakeAt = Infinity;
    const asking = this.asking;
    this.asking = [];
    if (!(ms >= MIN_SLEEP_MS)) return;
    for (const p of asking) p.slept = true;
    this.hooks.sleep(Math.min(ms, this.maxSleepMs));
  };
}
