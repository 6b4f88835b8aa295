// The engine's multiplexed streams for attach, exec and logs: the frame encoder (translate/stream, pure, also
// used by the log readers) re-exported, the incremental frame decoder, and detach-key handling.
import { invalidParameter } from '../errors';

export { frame, streamType, writeFrameHeader } from '../translate/stream';

/** Incremental decoder: feed bytes, get complete frames. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): { stream: number; payload: Buffer }[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: { stream: number; payload: Buffer }[] = [];
    while (this.buf.length >= 8) {
      const len = this.buf.readUInt32BE(4);
      if (this.buf.length < 8 + len) break;
      out.push({ stream: this.buf[0], payload: this.buf.subarray(8, 8 + len) });
      this.buf = this.buf.subarray(8 + len);
    }
    return out;
  }
}

export const DEFAULT_DETACH_KEYS = [0x10, 0x11]; // ctrl-p, ctrl-q

/** Parses `ctrl-p,ctrl-q` / `a,b` into bytes, with the engine's error message. */
export function parseDetachKeys(spec: string | undefined): number[] {
  if (!spec) return DEFAULT_DETACH_KEYS;
  const out: number[] = [];
  for (const k of spec.split(',')) {
    const key = k.trim();
    if (key.length === 1) {
      out.push(key.charCodeAt(0));
      continue;
    }
    const m = /^ctrl-(.)$/.exec(key);
    if (m) {
      const c = m[1];
      if (c >= 'a' && c <= 'z') out.push(c.charCodeAt(0) - 96);
      else if (c === '@') out.push(0);
      else if (c === '[') out.push(27);
      else if (c === '\\') out.push(28);
      else if (c === ']') out.push(29);
      else if (c === '^') out.push(30);
      else if (c === '_') out.push(31);
      else throw invalidParameter(`Invalid detach keys (${spec}) provided`);
      continue;
    }
    throw invalidParameter(`Invalid detach keys (${spec}) provided`);
  }
  return out;
}

/** Watches stdin bytes for the detach sequence; returns the bytes to forward and whether it matched. */
export class DetachWatcher {
  private matched = 0;
  private held: number[] = [];
  constructor(private readonly keys: number[]) {}
  feed(chunk: Buffer): { forward: Buffer; detach: boolean } {
    const out: number[] = [];
    for (const b of chunk) {
      if (b === this.keys[this.matched]) {
        this.held.push(b);
        if (++this.matched === this.keys.length) return { forward: Buffer.from(out), detach: true };
        continue;
      }
      out.push(...this.held);
      this.held = [];
      this.matched = 0;
      if (b === this.keys[0]) {
        this.held.push(b);
        this.matched = 1;
        if (this.keys.length === 1) return { forward: Buffer.from(out), detach: true };
      } else out.push(b);
    }
    return { forward: Buffer.from(out), detach: false };
  }
}
