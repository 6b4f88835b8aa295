// The json-file log line codec, at the byte level — pure.
//
// A line is `{"log":"<escaped bytes>","stream":"stdout|stderr","time":"<RFC 3339 nano>"}` (the engine's format;
// files written by the engine may carry `,"attrs":{…}` before the closing brace). A container printing short lines
// makes millions of them, and per-line JSON.stringify/JSON.parse plus a socket write per entry held the log path
// to about 20 MB/s. Here bytes are viewed as latin1 strings (one char per byte, converted natively both ways), so
// the scans are the engine's native string search and regular expressions rather than JS loops over bytes.
import { isUtf8 } from 'node:buffer';

export type StreamName = 'stdout' | 'stderr';

const HEAD = Buffer.from('{"log":"');
const HEX = Buffer.from('0123456789abcdef');

// What the engine's json-file writer escapes (moby's jsonlog, ffjson style): `"` `\` \n \r as short escapes, other
// control characters and `<` `>` `&` as \u00XX, U+2028/U+2029 as \u2028/\u2029, each invalid UTF-8 byte as
// \ufffd; every other byte as it is. ACTION: 0 plain, 1 escape this byte, 2 maybe U+2028/9 (0xE2), 3 a non-ASCII
// lead or stray byte (validated only when the chunk is not valid UTF-8).
const PLAIN = 0;
const ESCAPE = 1;
const E2 = 2;
const HIGH = 3;
const ACTION_VALID = new Uint8Array(256);
for (let i = 0; i < 0x20; i++) ACTION_VALID[i] = ESCAPE;
for (const c of [0x22, 0x5c, 0x3c, 0x3e, 0x26]) ACTION_VALID[c] = ESCAPE;
ACTION_VALID[0xe2] = E2;
const ACTION_INVALID = Uint8Array.from(ACTION_VALID);
for (let i = 0x80; i < 0x100; i++) ACTION_INVALID[i] = HIGH;
const SHORT_ESCAPE: Record<number, number> = { 0x0a: 0x6e, 0x0d: 0x72, 0x22: 0x22, 0x5c: 0x5c };
const REPLACEMENT_ESCAPE = Buffer.from('\\ufffd');
const HEAD_S = '{"log":"';
// The same set over a latin1 view of valid UTF-8, newlines apart (they end entries).
const NEEDS_ESCAPE = /[\x00-\x09\x0b-\x1f"\\<>&]/; // a plain class: the fast scan
const ESCAPES = /[\x00-\x09\x0b-\x1f"\\<>&]|\xe2\x80[\xa8\xa9]/g;
const needsEscape = (text: string) => NEEDS_ESCAPE.test(text) || (text.includes('\xe2\x80') && /\xe2\x80[\xa8\xa9]/.test(text));
function escapeOne(m: string): string {
  if (m.length === 3) return m.charCodeAt(2) === 0xa8 ? '\\u2028' : '\\u2029';
  const c = m.charCodeAt(0);
  const short = SHORT_ESCAPE[c];
  if (short !== undefined) return '\\' + String.fromCharCode(short);
  return '\\u00' + (c < 16 ? '0' : '') + c.toString(16);
}

/** Length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune rules), 0 when it is invalid. */
function utf8SequenceAt(b: Buffer, i: number, end: number): number {
  const c = b[i];
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < end && b[i + k] >= lo && b[i + k] <= hi;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // no surrogates
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Buffer.copy costs a native call each time: short runs (most log lines) are copied byte by byte. */
function copyBytes(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): number {
  const n = end - start;
  if (n > 96) {
    dst.set(src.subarray(start, end), at);
    return n;
  }
  for (let k = 0; k < n; k++) dst[at + k] = src[start + k];
  return n;
}

/** Length of an incomplete UTF-8 sequence at the end of `b` (0 when it ends on a character boundary). */
export function incompleteUtf8Tail(b: Buffer): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const c = b[b.length - back];
    if ((c & 0xc0) === 0x80) continue; // continuation byte: look further back
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/**
 * Encodes `chunk` as json-file lines (one per newline-terminated line, plus one for a final partial line), every
 * line stamped with `time`. Invalid UTF-8 becomes U+FFFD, as the engine writes it. `scratch` is reused between
 * calls; the result is a view into it (or a new buffer when it was too small) valid until the next call.
 */
export class LogEncoder {
  private scratch = Buffer.allocUnsafe(256 * 1024);

  encode(chunk: Buffer, stream: StreamName, time: string): Buffer {
    if (!isUtf8(chunk)) return this.encodeBytes(chunk, stream, time, ACTION_INVALID);
    let text = chunk.toString('latin1');
    if (needsEscape(text)) text = text.replace(ESCAPES, escapeOne);
    const rest = `","stream":"${stream}","time":"${time}"}\n`;
    let out = HEAD_S + text.replaceAll('\n', '\\n' + rest + HEAD_S);
    out = text.endsWith('\n') ? out.slice(0, out.length - HEAD_S.length) : out + rest;
    if (this.scratch.length < out.length) this.scratch = Buffer.allocUnsafe(Math.max(out.length, this.scratch.length * 2));
    return this.scratch.subarray(0, this.scratch.write(out, 0, 'latin1'));
  }

  /** Byte by byte, for a chunk that is not valid UTF-8 (each invalid byte becomes \ufffd). */
  private encodeBytes(chunk: Buffer, stream: StreamName, time: string, action: Uint8Array): Buffer {
    const tail = Buffer.from(`","stream":"${stream}","time":"${time}"}\n`);
    // Worst case: every byte a 6-byte escape and a line of its own.
    const worst = chunk.length * 6 + (chunk.length + 1) * (HEAD.length + tail.length);
    if (this.scratch.length < worst) this.scratch = Buffer.allocUnsafe(Math.max(worst, this.scratch.length * 2));
    const out = this.scratch;
    let o = 0;
    let lineOpen = false;
    let run = 0; // start of the current run of plain bytes
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      if (!lineOpen) {
        o += copyBytes(HEAD, 0, HEAD.length, out, o);
        lineOpen = true;
      }
      const c = chunk[i];
      const a = action[c];
      if (a === PLAIN) continue;
      if (a === E2 || a === HIGH) {
        const len = a === HIGH ? utf8SequenceAt(chunk, i, n) : 3;
        if (len > 0 && !(c === 0xe2 && chunk[i + 1] === 0x80 && (chunk[i + 2] === 0xa8 || chunk[i + 2] === 0xa9))) {
          i += len - 1; // a valid character, copied with the run
          continue;
        }
        if (i > run) o += copyBytes(chunk, run, i, out, o);
        if (len > 0) {
          o += out.write(chunk[i + 2] === 0xa8 ? '\\u2028' : '\\u2029', o, 'latin1');
          i += 2;
        } else o += copyBytes(REPLACEMENT_ESCAPE, 0, REPLACEMENT_ESCAPE.length, out, o);
        run = i + 1;
        continue;
      }
      if (i > run) o += copyBytes(chunk, run, i, out, o);
      run = i + 1;
      const short = SHORT_ESCAPE[c];
      out[o++] = 0x5c;
      if (short !== undefined) out[o++] = short;
      else {
        out[o++] = 0x75; // \u00XX
        out[o++] = 0x30;
        out[o++] = 0x30;
        out[o++] = HEX[c >> 4];
        out[o++] = HEX[c & 15];
      }
      if (c === 0x0a) {
        o += copyBytes(tail, 0, tail.length, out, o);
        lineOpen = false;
      }
    }
    if (lineOpen) {
      if (n > run) o += copyBytes(chunk, run, n, out, o);
      o += copyBytes(tail, 0, tail.length, out, o);
    }
    return out.subarray(0, o);
  }
}

/** One decoded line: `text` is the log's bytes as a latin1 string (one char per byte). */
export interface LineView {
  stream: StreamName;
  text: string;
  time: string;
  /** `attrs` JSON text when the line has it (lines written by the engine with log options). */
  attrs?: string;
}

const STREAM_KEY_S = '","stream":"';
const TIME_KEY_S = '","time":"';

/**
 * Decodes the line `s[start, end)` of a latin1 view of the file (no newline). Lines in another shape give
 * undefined: the caller then falls back to JSON.parse (and skips what does not parse).
 */
export function decodeLine(s: string, start: number, end: number): LineView | undefined {
  if (!s.startsWith(HEAD_S, start)) return undefined;
  // The last `","stream":"` of the line: inside the log text every quote is escaped, so it cannot occur there.
  const k = s.lastIndexOf(STREAM_KEY_S, end - STREAM_KEY_S.length);
  if (k < start + HEAD_S.length) return undefined;
  const st = k + STREAM_KEY_S.length;
  let stream: StreamName;
  if (s.startsWith('stdout', st)) stream = 'stdout';
  else if (s.startsWith('stderr', st)) stream = 'stderr';
  else return undefined;
  if (!s.startsWith(TIME_KEY_S, st + 6)) return undefined;
  const timeStart = st + 6 + TIME_KEY_S.length;
  const timeEnd = s.indexOf('"', timeStart);
  if (timeEnd < 0 || timeEnd >= end) return undefined;
  let attrs: string | undefined;
  if (timeEnd + 2 === end && s.charCodeAt(timeEnd + 1) === 0x7d) attrs = undefined;
  else {
    const m = /^,"attrs":(\{.*\})\}$/.exec(s.slice(timeEnd + 1, end));
    if (!m) return undefined;
    attrs = Buffer.from(m[1], 'latin1').toString('utf8');
  }
  return { stream, text: unescapeLatin1(s.slice(start + HEAD_S.length, k)), time: s.slice(timeStart, timeEnd), attrs };
}

const UNESCAPE = /\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\u([0-9a-f]{4})|\\(.)/gi;
const SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
const utf8Latin1 = (cp: number) => Buffer.from(String.fromCodePoint(cp), 'utf8').toString('latin1');
function unescapeOne(_m: string, hi: string | undefined, lo: string | undefined, u: string | undefined, c: string | undefined): string {
  if (hi) return utf8Latin1(0x10000 + ((parseInt(hi, 16) - 0xd800) << 10) + (parseInt(lo!, 16) - 0xdc00));
  if (u) {
    const code = parseInt(u, 16);
    if (code < 0x80) return String.fromCharCode(code);
    return utf8Latin1(code >= 0xd800 && code <= 0xdfff ? 0xfffd : code); // a lone surrogate decodes as U+FFFD
  }
  return SIMPLE[c!] ?? c!;
}

/** The bytes (latin1 view) of a JSON string body (latin1 view of its UTF-8). */
export function unescapeLatin1(body: string): string {
  const bs = body.indexOf('\\');
  if (bs < 0) return body;
  if (bs === body.length - 2 && body.charCodeAt(bs + 1) === 0x6e) return body.slice(0, bs) + '\n'; // most lines
  return body.replace(UNESCAPE, unescapeOne);
}
