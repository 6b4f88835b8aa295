// The json-file log line codec, at the byte level — pure.
//
// A line is `{"log":"<escaped bytes>","stream":"stdout|stderr","time":"<RFC 3339 nano>"}` (the engine's format;
// files written by the engine may carry `,"attrs":{…}` before the closing brace). A container printing short lines
// makes millions of them, and per-line JSON.stringify/JSON.parse plus a socket write per entry held the log path
// to about 20 MB/s. Writing: valid UTF-8 goes through a WebAssembly SIMD encoder (jsonlog.wat), anything else
// (invalid UTF-8: binary output) byte by byte through a table. Reading: bytes are viewed as latin1 strings (one char
// per byte, converted natively both ways), so the scans are the engine's native string search and regular
// expressions rather than JS loops over bytes.
import { isUtf8 } from 'node:buffer';
import { JSONLOG_WASM } from './jsonlog-wasm';
import type { StreamName } from '../types/io';

const HEAD = Buffer.from('{"log":"');
// What the engine's json-file writer escapes (moby's jsonlog, ffjson style): `"` `\` \n \r as short escapes, other
// control characters and `<` `>` `&` as \u00XX, U+2028/U+2029 as \u2028/\u2029, invalid UTF-8 as \ufffd; every
// other byte as it is; newlines apart (they end entries).
const SHORT_ESCAPE: Record<number, number> = { 0x0a: 0x6e, 0x0d: 0x72, 0x22: 0x22, 0x5c: 0x5c };
const HEAD_S = '{"log":"';
function escapeOne(m: string): string {
  const c = m.charCodeAt(0);
  const short = SHORT_ESCAPE[c];
  if (short !== undefined) return '\\' + String.fromCharCode(short);
  return '\\u00' + (c < 16 ? '0' : '') + c.toString(16);
}

// The escape of each ASCII byte that has one (undefined: written as it is).
const ESCAPE_OF: (Buffer | undefined)[] = [];
for (let c = 0; c < 0x80; c++) {
  const special = c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26;
  ESCAPE_OF[c] = special ? Buffer.from(escapeOne(String.fromCharCode(c)), 'latin1') : undefined;
}
const ESC_2028 = Buffer.from('\\u2028');
const ESC_2029 = Buffer.from('\\u2029');
const ESC_FFFD = Buffer.from('\\ufffd');

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
 * One output buffer for every encoder: encoding is synchronous and its result is written out before the next call,
 * so containers need not each keep one. It grows to the largest chunk's need.
 */
let shared: Buffer | undefined; // made at the first encode (an idle berth holds none)
function scratch(size: number): Buffer {
  if (!shared || shared.length < size) shared = Buffer.allocUnsafe(Math.max(size, (shared?.length ?? 128 * 1024) * 2));
  return shared;
}

// (the project's type libraries have no WebAssembly declarations: what is used of it)
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: Record<string, unknown> } };
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

let compiled: object | undefined;
/** jsonlog.wat compiled, once per thread; each user makes its own instance (its own memory). */
function instantiate(): { exports: Record<string, unknown> } {
  return new WebAssembly.Instance((compiled ??= new WebAssembly.Module(Buffer.from(JSONLOG_WASM, 'base64'))));
}

/**
 * The encoder for valid UTF-8 (all but binary output): jsonlog.wat, 16 bytes at a time with WebAssembly SIMD, about
 * four times faster than native string replacement over a latin1 view, and its output is written to the file
 * straight from the module's memory. Its tables are laid out here (see the .wat for the map).
 */
class SimdEncoder {
  private readonly memory: WasmMemory;
  private readonly run: (input: number, length: number, output: number, seq: number) => number;
  private readonly runFrame: (input: number, length: number, output: number, type: number) => number;
  private mem: Buffer;
  private static readonly SEQ = 1024;
  private static readonly INPUT = 2048;
  /** Counts the chunks encoded (see frameInput); the last one's length. */
  encoded = 0;
  private lastLength = 0;

  constructor() {
    const instance = instantiate();
    this.memory = instance.exports.memory as WasmMemory;
    this.run = instance.exports.encode as SimdEncoder['run'];
    this.runFrame = instance.exports.frame as SimdEncoder['runFrame'];
    this.mem = Buffer.from(this.memory.buffer);
    for (let c = 0; c < 0x80; c++) {
      const e = ESCAPE_OF[c];
      if (!e) continue;
      this.mem[c * 8] = e.length;
      e.copy(this.mem, c * 8 + 1);
    }
    ESC_2028.copy(this.mem, 1280);
    ESC_2029.copy(this.mem, 1288);
  }

  /** The json-file lines of `chunk` (valid UTF-8): a view into the module's memory, valid until the next call. */
  encode(chunk: Buffer, stream: StreamName, time: string): Buffer {
    const seq = `\\n","stream":"${stream}","time":"${time}"}\n{"log":"`;
    const n = chunk.length;
    if (!n) return chunk; // no entry (as the byte-by-byte encoder)
    const output = SimdEncoder.INPUT + ((n + 31) & ~15);
    // Every byte a newline at worst (each a whole sequence); counted when that bound would be large.
    let worst = n * seq.length;
    if (worst > 8 << 20) {
      let lines = 0;
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) lines++;
      worst = n * 6 + lines * seq.length;
    }
    const need = output + 8 + worst + seq.length + 32;
    if (need > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
      this.mem = Buffer.from(this.memory.buffer);
    }
    this.mem.write(seq, SimdEncoder.SEQ, 'latin1');
    chunk.copy(this.mem, SimdEncoder.INPUT);
    const len = this.run(SimdEncoder.INPUT, n, output, seq.length);
    this.encoded++;
    this.lastLength = n;
    return this.mem.subarray(output, output + len);
  }

  /**
   * The last chunk encoded, still in the module's memory, framed a line to a frame (jsonlog.wat's `frame`) where its
   * encoding was (written out by now): a live follower's framing without copying the chunk in again. A view valid
   * until the next call.
   */
  frameInput(type: number): Buffer {
    const n = this.lastLength;
    const output = SimdEncoder.INPUT + ((n + 31) & ~15);
    const need = output + 9 * n + 32; // every byte a newline at worst: a header each
    if (need > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
      this.mem = Buffer.from(this.memory.buffer);
    }
    const len = this.runFrame(SimdEncoder.INPUT, n, output, type);
    return this.mem.subarray(output, output + len);
  }
}

/**
 * The reader's fast path (jsonlog.wat's `decode`): whole json-file lines in berth's own layout straight to their
 * entries' bytes, a frame per entry when framed, entries of unwanted streams left out. It stops at a line it does
 * not handle (see the .wat), for the caller to decode that line another way.
 *
 * Made with read buffers (`readBuffers`), its memory is laid out once for good: the buffers, then the output, and it
 * never grows (a growth would detach the buffers' views while a read into one may be running on the thread pool);
 * a chunk read into one of them is decoded where it is, without a copy. Without them, each chunk is copied in and
 * the memory grows to the largest.
 */
export class LogDecoder {
  private readonly memory: WasmMemory;
  private readonly run: (input: number, length: number, output: number, flags: number) => number;
  private mem: Buffer;
  private static readonly INPUT = 64;
  private readonly slots: Buffer[] = [];
  /** Where the output goes when the memory is laid out with read buffers. */
  private readonly fixedOutput?: number;

  /** `slotSize`: the size of each of the `slots` read buffers (none: the chunks are copied in). */
  constructor(slotSize = 0, slots = 0) {
    const instance = instantiate();
    this.memory = instance.exports.memory as WasmMemory;
    this.run = instance.exports.decode as LogDecoder['run'];
    if (slotSize > 0 && slots > 0) {
      // 16 bytes between buffers: the decoder reads whole blocks past a chunk's end (masked), never into the next
      // buffer, where the thread pool may be writing.
      const stride = (slotSize + 16 + 15) & ~15;
      const output = LogDecoder.INPUT + slots * stride;
      // the output is never longer than the input (see decode); the decoder writes whole blocks past it
      const need = output + slotSize + 128;
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
      this.fixedOutput = output;
    }
    this.mem = Buffer.from(this.memory.buffer);
    for (let i = 0; i < slots && slotSize > 0; i++) {
      const at = LogDecoder.INPUT + i * ((slotSize + 16 + 15) & ~15);
      this.slots.push(this.mem.subarray(at, at + slotSize));
    }
  }

  /** The read buffers in the module's memory (views that stay valid: this memory never grows). */
  readBuffers(): readonly Buffer[] {
    return this.slots;
  }

  /** Whether `chunk` lies in this decoder's memory (one of its read buffers): else a decoder without read buffers
   *  decodes it. */
  holds(chunk: Buffer): boolean {
    return chunk.buffer === this.memory.buffer;
  }

  /**
   * Decodes `chunk` (whole lines) from `from`: the output (a view into the module's memory, valid until the next
   * call) and where the decoder stopped (`chunk.length` when it decoded everything, else the start of a line it
   * does not handle). With read buffers, `chunk` must lie in one of them.
   */
  decode(chunk: Buffer, from: number, o: { stdout: boolean; stderr: boolean; framed: boolean }): { out: Buffer; stopped: number } {
    const n = chunk.length - from;
    let input: number;
    let output: number;
    if (this.fixedOutput !== undefined) {
      if (!this.holds(chunk)) throw new Error('LogDecoder: a chunk outside its read buffers');
      input = chunk.byteOffset + from;
      output = this.fixedOutput;
    } else {
      input = LogDecoder.INPUT;
      output = LogDecoder.INPUT + ((n + 31) & ~15);
      const need = output + n + 128;
      if (need > this.memory.buffer.byteLength) {
        this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
        this.mem = Buffer.from(this.memory.buffer);
      }
      chunk.copy(this.mem, input, from);
    }
    const flags = (o.stdout ? 1 : 0) | (o.stderr ? 2 : 0) | (o.framed ? 4 : 0);
    const len = this.run(input, n, output, flags);
    return { out: this.mem.subarray(output, output + len), stopped: from + this.mem.readUInt32LE(0) - input };
  }
}

/**
 * A thread's one instance of what `make` builds (a WebAssembly module's user), made at its first use so an idle
 * berth holds neither the module nor its memory; undefined where it cannot be made (no WebAssembly SIMD here).
 */
function perThread<T>(make: () => T): () => T | undefined {
  let v: T | null | undefined;
  return () => {
    if (v === undefined) {
      try {
        v = make();
      } catch {
        v = null;
      }
    }
    return v ?? undefined;
  };
}

/** The thread's decoder without read buffers (decoding is synchronous: one serves every reader). */
export const sharedLogDecoder = perThread(() => new LogDecoder());

/** Decoders with read buffers not in use (one kept: a thread's readers mostly come one at a time). */
const idleDecoders: LogDecoder[] = [];
let idleSlotSize = 0;
/**
 * A decoder with two read buffers of `slotSize` bytes, for one reader at a time (a read may be running into one of
 * them while the other's chunk is decoded); given back with `releaseLogDecoder` once no read into them is running.
 * Undefined where there is no WebAssembly SIMD.
 */
export function takeLogDecoder(slotSize: number): LogDecoder | undefined {
  if (idleSlotSize === slotSize && idleDecoders.length) return idleDecoders.pop();
  try {
    return new LogDecoder(slotSize, 2);
  } catch {
    return undefined; // (the module cannot run here)
  }
}
export function releaseLogDecoder(d: LogDecoder, slotSize: number): void {
  if (idleSlotSize !== slotSize) idleDecoders.length = 0;
  idleSlotSize = slotSize;
  if (idleDecoders.length < 1) idleDecoders.push(d);
}

/**
 * A live follower's framing (jsonlog.wat's `frame`): a frame per line, 16 bytes at a time, where the JS loop spends
 * a native indexOf and a byte loop per line (a quarter of a microsecond for 63-byte lines: 1.3 s of the capture
 * thread per 256 MiB, against 0.17 s for the json-file encoding of the same bytes).
 */
export class LineFramer {
  private readonly memory: WasmMemory;
  private readonly run: (input: number, length: number, output: number, type: number) => number;
  private mem: Buffer;

  constructor() {
    const instance = instantiate();
    this.memory = instance.exports.memory as WasmMemory;
    this.run = instance.exports.frame as LineFramer['run'];
    this.mem = Buffer.from(this.memory.buffer);
  }

  /** `payload` framed a line to a frame: a view into the module's memory, valid until the next call. */
  frame(type: number, payload: Buffer): Buffer {
    const n = payload.length;
    const output = (n + 31) & ~15;
    // every byte a newline at worst: a header each
    const need = output + 9 * n + 32;
    if (need > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
      this.mem = Buffer.from(this.memory.buffer);
    }
    payload.copy(this.mem, 0);
    const len = this.run(0, n, output, type);
    return this.mem.subarray(output, output + len);
  }
}

/** The thread's framer (synchronous: one serves every follower). */
export const sharedLineFramer = perThread(() => new LineFramer());

// the byte-by-byte encoder does it all where there is no WebAssembly SIMD
const simd = perThread(() => new SimdEncoder());

/**
 * Encodes `chunk` as json-file lines (one per newline-terminated line, plus one for a final partial line), every
 * line stamped with `time`. Invalid UTF-8 becomes U+FFFD, as the engine writes it. The result is a view
 * into the shared output buffer, valid until the next call.
 */
export class LogEncoder {

  /** Whether the last chunk encoded was valid UTF-8 (then a reader gets it back unchanged: see asLogged). */
  lastValid = true;
  /** The SIMD encoder's count after this encoder's last chunk (undefined: not encoded by it). */
  private lastSimd?: number;

  /** `bytewise`: never the SIMD encoder (tests compare the two). */
  constructor(private readonly bytewise = false) {}

  encode(chunk: Buffer, stream: StreamName, time: string): Buffer {
    this.lastValid = isUtf8(chunk);
    const fast = this.lastValid && !this.bytewise ? simd() : undefined;
    this.lastSimd = undefined;
    if (fast) {
      const out = fast.encode(chunk, stream, time);
      this.lastSimd = fast.encoded;
      return out;
    }
    return this.encodeEscaped(chunk, stream, time);
  }

  /**
   * The last chunk encoded framed a line to a frame (as LineFramer frames it), from the SIMD encoder's copy of it:
   * undefined unless that chunk went through the SIMD encoder and is still the last it encoded. A view valid until
   * the next call.
   */
  frameLast(type: number): Buffer | undefined {
    const fast = this.lastSimd === undefined ? undefined : simd();
    return fast && fast.encoded === this.lastSimd ? fast.frameInput(type) : undefined;
  }

  /**
   * Byte by byte, through tables (binary output, much to escape, invalid UTF-8): each invalid byte becomes \ufffd
   * as Go's decoder sees it (an invalid or truncated sequence gives up one byte at a time).
   */
  private encodeEscaped(b: Buffer, stream: StreamName, time: string): Buffer {
    const rest = Buffer.from(`","stream":"${stream}","time":"${time}"}\n`);
    let lines = 1;
    for (let at = b.indexOf(0x0a); at >= 0; at = b.indexOf(0x0a, at + 1)) lines++;
    const out = scratch(b.length * 6 + lines * (HEAD.length + rest.length)); // every byte a 6-byte escape at worst
    let o = 0;
    let open = false;
    const n = b.length;
    for (let i = 0; i < n; i++) {
      if (!open) {
        for (let k = 0; k < HEAD.length; k++) out[o++] = HEAD[k];
        open = true;
      }
      const c = b[i];
      if (c < 0x80) {
        const e = ESCAPE_OF[c];
        if (e === undefined) {
          out[o++] = c;
          continue;
        }
        for (let k = 0; k < e.length; k++) out[o++] = e[k];
        if (c === 0x0a) {
          for (let k = 0; k < rest.length; k++) out[o++] = rest[k];
          open = false;
        }
        continue;
      }
      const len = utf8Length(b, i, n);
      if (len === 0) {
        for (let k = 0; k < 6; k++) out[o++] = ESC_FFFD[k];
        continue;
      }
      if (c === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) {
        const esc = b[i + 2] === 0xa8 ? ESC_2028 : ESC_2029;
        for (let k = 0; k < 6; k++) out[o++] = esc[k];
      } else for (let k = 0; k < len; k++) out[o++] = b[i + k];
      i += len - 1;
    }
    if (open) for (let k = 0; k < rest.length; k++) out[o++] = rest[k];
    return out.subarray(0, o);
  }
}

/**
 * The bytes a reader of the log gets back for `b`: valid UTF-8 unchanged, each invalid byte as U+FFFD (what the
 * writer's \ufffd decodes to).
 */
export function asLogged(b: Buffer): Buffer {
  if (isUtf8(b)) return b;
  const out = Buffer.allocUnsafe(b.length * 3);
  let o = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    const len = c < 0x80 ? 1 : utf8Length(b, i, b.length);
    if (len === 0) {
      out[o++] = 0xef;
      out[o++] = 0xbf;
      out[o++] = 0xbd;
      continue;
    }
    for (let k = 0; k < len; k++) out[o++] = b[i + k];
    i += len - 1;
  }
  return out.subarray(0, o);
}

/** Length of the valid UTF-8 sequence whose lead byte (>= 0x80) is at `i` (Go's rules), 0 when invalid. */
function utf8Length(b: Buffer, i: number, end: number): number {
  const c = b[i];
  if (c < 0xc2 || c > 0xf4) return 0;
  const c1 = i + 1 < end ? b[i + 1] : 0;
  if (c < 0xe0) return (c1 & 0xc0) === 0x80 ? 2 : 0;
  const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
  const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
  if (c1 < lo || c1 > hi) return 0;
  const c2 = i + 2 < end ? b[i + 2] : 0;
  if ((c2 & 0xc0) !== 0x80) return 0;
  if (c < 0xf0) return 3;
  const c3 = i + 3 < end ? b[i + 3] : 0;
  return (c3 & 0xc0) === 0x80 ? 4 : 0;
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
const ATTRS_KEY_S = '","attrs":';
const LAST_TIME_KEY_S = ',"time":"';

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
  if (s.startsWith(ATTRS_KEY_S, st + 6)) {
    // The engine's order with log options (and berth's): attrs, then time, last. Inside attribute values every
    // quote is escaped, so the last `,"time":"` is the key.
    const a = st + 6 + ATTRS_KEY_S.length;
    const t = s.lastIndexOf(LAST_TIME_KEY_S, end);
    if (t < a || s.charCodeAt(a) !== 0x7b || s.charCodeAt(t - 1) !== 0x7d || !s.startsWith('"}', end - 2)) return undefined;
    return { stream, text: unescapeLatin1(s.slice(start + HEAD_S.length, k)), time: s.slice(t + LAST_TIME_KEY_S.length, end - 2), attrs: Buffer.from(s.slice(a, t), 'latin1').toString('utf8') };
  }
  if (!s.startsWith(TIME_KEY_S, st + 6)) return undefined;
  const timeStart = st + 6 + TIME_KEY_S.length;
  const timeEnd = s.indexOf('"', timeStart);
  if (timeEnd < 0 || timeEnd >= end) return undefined;
  let attrs: string | undefined;
  if (timeEnd + 2 === end && s.charCodeAt(timeEnd + 1) === 0x7d) attrs = undefined;
  else {
    // attrs after time (another writer's order)
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
