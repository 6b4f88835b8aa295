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

export function frame(stream: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  writeFrameHeader(out, 0, stream, payload.length);
  payload.copy(out, 8);
  return out;
}
