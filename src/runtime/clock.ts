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
/** rfc3339Nano(now()), with the date and time of day formatted once per second. */
export function nowRfc3339Nano(): string {
  const t = now();
  if (t.seconds !== lastSecond) {
    lastSecond = t.seconds;
    lastBase = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  }
  if (!t.nanos) return lastBase + 'Z';
  let frac = String(t.nanos).padStart(9, '0');
  while (frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${lastBase}.${frac}Z`;
}
