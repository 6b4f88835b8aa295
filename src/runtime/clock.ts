// Wall-clock time with nanosecond resolution (Date.now() has only milliseconds).
import type { Timestamp } from '../translate/time';

const HR_BASE = process.hrtime.bigint();
const EPOCH_BASE_NS = BigInt(Date.now()) * 1_000_000n;

export function nowNanos(): bigint {
  return process.hrtime.bigint() - HR_BASE + EPOCH_BASE_NS;
}

export function now(): Timestamp {
  const ns = nowNanos();
  return { seconds: Number(ns / 1_000_000_000n), nanos: Number(ns % 1_000_000_000n) };
}
