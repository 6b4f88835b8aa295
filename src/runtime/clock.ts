// Wall-clock time with nanosecond resolution (Date.now() has only milliseconds).
import type { Timestamp } from '../types/time';

const HR0 = process.hrtime();
const EPOCH0_MS = Date.now();
const HR_BASE = BigInt(HR0[0]) * 1_000_000_000n + BigInt(HR0[1]);
const EPOCH_BASE_NS = BigInt(EPOCH0_MS) * 1_000_000n;
const EPOCH0_S = Math.floor(EPOCH0_MS / 1000);
const EPOCH0_NS = (EPOCH0_MS % 1000) * 1_000_000;

export function nowNanos(): bigint {
  return process.hrtime.bigint() - HR_BASE + EPOCH_BASE_NS;
}

/** The same instant as nowNanos() would give, without BigInt arithmetic (it is read for every captured chunk). */
export function now(): Timestamp {
  const [s, ns] = process.hrtime(HR0);
  let seconds = EPOCH0_S + s;
  let nanos = EPOCH0_NS + ns;
  if (nanos >= 1_000_000_000) {
    seconds++;
    nanos -= 1_000_000_000;
  }
  return { seconds, nanos };
}

let lastSecond = NaN;
let lastBase = '';
/**
 * The time of a json-file entry: RFC 3339 with nine fractional digits always (a time whose last digit is 0 is written
 * one nanosecond later), the date and time of day formatted once per second.
 *
 * The entries of one read share its time; the engine takes a time per line, and Go trims trailing zeros, so one of
 * its lines in ten is a byte shorter, independently of the others. A shared time with trailing zeros shortened every
 * entry of a read at once: with max-size the files took a line more each and kept other lines than the engine's
 * (1k, 3 files, 100 lines in one read at a time ending in 00: lines 71-100 kept where the engine keeps 66-100).
 */
export function logTime(t: Timestamp): string {
  if (t.seconds !== lastSecond) {
    lastSecond = t.seconds;
    lastBase = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  }
  const nanos = t.nanos % 10 ? t.nanos : t.nanos + 1;
  return `${lastBase}.${String(nanos).padStart(9, '0')}Z`;
}
