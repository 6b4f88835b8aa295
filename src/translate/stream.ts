// The engine's stream framing: an 8-byte header (stream type, 3 zero bytes, big-endian payload length) before each
// payload — pure wire encoding, used by http (attach, exec) and by the log readers (services/logs, in a worker too).

const STDOUT = 1;
const STDERR = 2;

/** The frame type of an output stream. */
export const streamType = (name: 'stdout' | 'stderr'): number => (name === 'stdout' ? STDOUT : STDERR);

/** Writes the 8-byte header of a frame of `length` payload bytes at `at` (byte by byte: it runs once per log line). */
export function writeFrameHeader(out: Buffer, at: number, stream: number, length: number): void {
  out[at] = stream;
  out[at + 1] = 0;
  out[at + 2] = 0;
  out[at + 3] = 0;
  out[at + 4] = length >>> 24;
  out[at + 5] = (length >>> 16) & 255;
  out[at + 6] = (length >>> 8) & 255;
  out[at + 7] = length & 255;
}

/**
 * The bytes of `payload` framed a line to a frame (each frame ends with its newline; a last line without one is a
 * frame of its own), as the engine frames a log's entries: clients that stream logs (docker-py's
 * `containers.run(stream=True)`) hand on one frame as one line.
 */
export function framedLinesLength(payload: Buffer): number {
  let frames = 0;
  for (let at = payload.indexOf(0x0a); at >= 0; at = payload.indexOf(0x0a, at + 1)) frames++;
  if (payload.length && payload[payload.length - 1] !== 0x0a) frames++;
  return payload.length + 8 * frames;
}

/**
 * Writes `payload` into `out` at `at`, a frame per line (see framedLinesLength); returns the offset after it, or -1
 * when the frames do not fit before `limit` (found as it writes: one pass over the payload).
 */
export function writeFramedLines(out: Buffer, at: number, stream: number, payload: Buffer, limit = out.length): number {
  const n = payload.length;
  let start = 0;
  while (start < n) {
    const nl = payload.indexOf(0x0a, start);
    const end = nl < 0 ? n : nl + 1;
    const len = end - start;
    if (at + 8 + len > limit) return -1;
    writeFrameHeader(out, at, stream, len);
    at += 8;
    // short lines byte by byte (a native copy per line costs more than the line: 5x for 6-byte lines)
    if (len < 64) for (let i = start; i < end; i++) out[at++] = payload[i];
    else {
      payload.copy(out, at, start, end);
      at += len;
    }
    start = end;
  }
  return at;
}

/** `payload` framed a line to a frame, in one buffer. */
export function frameLines(stream: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(framedLinesLength(payload));
  writeFramedLines(out, 0, stream, payload);
  return out;
}

export function frame(stream: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  writeFrameHeader(out, 0, stream, payload.length);
  payload.copy(out, 8);
  return out;
}
