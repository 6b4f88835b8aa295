// Time formats as Go writes them (RFC 3339 with nanoseconds, trailing zeros trimmed) — pure.
import type { Timestamp } from '../types/time';

/** Go's zero time (0001-01-01T00:00:00Z), used by containerd and the engine for "not set". */
export const GO_ZERO_SECONDS = -62135596800;
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** time.Time.Format(time.RFC3339Nano) in UTC. */
export function rfc3339Nano(t: Timestamp): string {
  if (t.seconds === GO_ZERO_SECONDS && t.nanos === 0) return ZERO_TIME;
  const base = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  if (!t.nanos) return base + 'Z';
  const frac = String(t.nanos).padStart(9, '0').replace(/0+$/, '');
  return `${base}.${frac}Z`;
}

/** From containerd's protobuf Timestamp ({seconds: string, nanos}). */
export function fromProtoTime(t: { seconds?: string | number | null; nanos?: number | null } | null | undefined): Timestamp {
  if (!t) return { seconds: GO_ZERO_SECONDS, nanos: 0 };
  return { seconds: Number(t.seconds ?? 0), nanos: t.nanos ?? 0 };
}

/** Parses an RFC 3339 string with up to nanosecond precision. */
export function parseRfc3339(s: string): Timestamp {
  if (s === ZERO_TIME) return { seconds: GO_ZERO_SECONDS, nanos: 0 };
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  if (!m) throw new Error(`bad time ${s}`);
  const ms = Date.parse(m[1] + m[3]);
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) || 0 };
}
