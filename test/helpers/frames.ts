/** The engine's multiplexed stream framing (8-byte header: stream, 0, 0, 0, big-endian length), split into frames. */
export interface Frame {
  stream: number;
  data: Buffer;
}

export function frames(buf: Buffer): Frame[] {
  const out: Frame[] = [];
  let at = 0;
  while (at + 8 <= buf.length) {
    const len = buf.readUInt32BE(at + 4);
    if (buf[at + 1] !== 0 || buf[at + 2] !== 0 || buf[at + 3] !== 0 || at + 8 + len > buf.length) throw new Error(`not a framed stream at byte ${at}`);
    out.push({ stream: buf[at], data: buf.subarray(at + 8, at + 8 + len) });
    at += 8 + len;
  }
  if (at !== buf.length) throw new Error(`${buf.length - at} trailing bytes after the last frame`);
  return out;
}
