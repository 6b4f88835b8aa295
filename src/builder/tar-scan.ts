// A tar stream's headers, read as the bytes go by: the build context is kept on disk as the tar it came as, and
// only its headers are decoded (ustar, GNU long names, pax records), each with the offset of its data in the
// archive. Pure: chunks in, headers out; no I/O. The data itself is never copied or looked at here.

export type TarType = 'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo';

export interface TarHeader {
  name: string;
  type: TarType;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtimeMs: number;
  linkname: string;
  devmajor: number;
  devminor: number;
  /** Offset of the entry's data in the archive. */
  offset: number;
}

const TYPES: Record<string, TarType> = { '0': 'file', '\0': 'file', '7': 'file', '1': 'link', '2': 'symlink', '3': 'character-device', '4': 'block-device', '5': 'directory', '6': 'fifo' };
/** Headers whose data are read here (names, pax records), never larger than this. */
const MAX_META = 1 << 20;

export class TarError extends Error {}

function str(b: Buffer, off: number, len: number): string {
  let end = off;
  const max = off + len;
  while (end < max && b[end] !== 0) end++;
  return b.toString('utf8', off, end);
}

/** An octal field, or base-256 (GNU) when the high bit of its first byte is set. */
function num(b: Buffer, off: number, len: number): number {
  if (b[off] & 0x80) {
    let v = b[off] & 0x7f;
    for (let i = off + 1; i < off + len; i++) v = v * 256 + b[i];
    return v;
  }
  const s = str(b, off, len).trim();
  return s ? parseInt(s, 8) : 0;
}

function checksumOk(b: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : b[i];
  return sum === num(b, 148, 8);
}

function isZero(b: Buffer): boolean {
  for (let i = 0; i < 512; i++) if (b[i] !== 0) return false;
  return true;
}

/** pax records: "<len> <key>=<value>\n". */
function paxRecords(b: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < b.length) {
    const sp = b.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(b.toString('ascii', i, sp), 10);
    if (!(len > 0) || i + len > b.length) break;
    const rec = b.toString('utf8', sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/** What a scan reports as it goes, in stream order: each entry's header, then its data (regular files) in pieces. */
export interface TarSink {
  header(h: TarHeader): void;
  /** A piece of the data of the entry whose header came last (`last`: its final piece; empty files have one, empty). */
  data(bytes: Buffer, last: boolean): void;
}

/**
 * Feeds a tar stream through: `push` every chunk (in order), `end` at the end of the stream. Headers come back as
 * they are complete (and go to the sink, with the data, when one is given). Errors as the engine's reader words
 * them where it matters (`unexpected EOF`).
 */
export class TarScanner {
  private pos = 0;
  /** Bytes of the current header block (or long-name/pax data) gathered so far. */
  private pending: Buffer[] = [];
  private pendingLen = 0;
  /** What the next bytes are: a header block, meta data to keep, or data (and padding) to skip. */
  private want: { kind: 'header'; n: 512 } | { kind: 'meta'; n: number; pad: number; type: string } | { kind: 'data'; n: number; pad: number } | { kind: 'skip'; n: number } = { kind: 'header', n: 512 };
  private longName?: string;
  private longLink?: string;
  private pax?: Record<string, string>;
  private paxGlobal: Record<string, string> = {};

  push(chunk: Buffer, sink?: TarSink): TarHeader[] {
    const out: TarHeader[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.want.kind === 'data') {
        const n = Math.min(this.want.n, chunk.length - i);
        this.want.n -= n;
        const last = this.want.n === 0;
        sink?.data(chunk.subarray(i, i + n), last);
        i += n;
        this.pos += n;
        if (last) this.want = this.want.pad ? { kind: 'skip', n: this.want.pad } : { kind: 'header', n: 512 };
        continue;
      }
      if (this.want.kind === 'skip') {
        const n = Math.min(this.want.n, chunk.length - i);
        this.want.n -= n;
        i += n;
        this.pos += n;
        if (this.want.n === 0) this.want = { kind: 'header', n: 512 };
        continue;
      }
      const need = this.want.n - this.pendingLen;
      const n = Math.min(need, chunk.length - i);
      this.pending.push(chunk.subarray(i, i + n));
      this.pendingLen += n;
      i += n;
      this.pos += n;
      if (this.pendingLen < this.want.n) continue;
      const block = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [];
      this.pendingLen = 0;
      if (this.want.kind === 'header') {
        const h = this.header(block);
        if (h) {
          out.push(h);
          sink?.header(h);
          if (h.type === 'file' && !h.size) sink?.data(Buffer.alloc(0), true);
        }
      } else {
        this.meta(this.want.type, block);
        this.want = this.want.pad ? { kind: 'skip', n: this.want.pad } : { kind: 'header', n: 512 };
      }
    }
    return out;
  }

  /** The stream ended: an error unless it ended between entries. */
  end(): void {
    if (this.pendingLen || this.want.kind !== 'header') throw new TarError('unexpected EOF');
  }

  private meta(type: string, b: Buffer): void {
    if (type === 'L') this.longName = str(b, 0, b.length);
    else if (type === 'K') this.longLink = str(b, 0, b.length);
    else if (type === 'x') this.pax = { ...this.paxGlobal, ...paxRecords(b) };
    else if (type === 'g') this.paxGlobal = { ...this.paxGlobal, ...paxRecords(b) };
  }

  private header(b: Buffer): TarHeader | undefined {
    if (isZero(b)) return undefined;
    if (!checksumOk(b)) throw new TarError('archive/tar: invalid tar header');
    const flag = String.fromCharCode(b[156]);
    let size = num(b, 124, 12);
    const pad = (512 - (size % 512)) % 512;
    if (flag === 'L' || flag === 'K' || flag === 'x' || flag === 'g') {
      if (size > MAX_META) throw new TarError('archive/tar: header too large');
      this.want = size ? { kind: 'meta', n: size, pad, type: flag } : { kind: 'header', n: 512 };
      return undefined;
    }
    const ustar = b.toString('ascii', 257, 263) === 'ustar\0';
    let name = str(b, 0, 100);
    if (ustar && b[345]) name = `${str(b, 345, 155)}/${name}`;
    let linkname = str(b, 157, 100);
    let uid = num(b, 108, 8);
    let gid = num(b, 116, 8);
    let mtimeMs = num(b, 136, 12) * 1000;
    if (this.longName !== undefined) name = this.longName;
    if (this.longLink !== undefined) linkname = this.longLink;
    const pax = this.pax ?? this.paxGlobal;
    if (pax.path) name = pax.path;
    if (pax.linkpath) linkname = pax.linkpath;
    if (pax.size) size = parseInt(pax.size, 10);
    if (pax.uid) uid = parseInt(pax.uid, 10);
    if (pax.gid) gid = parseInt(pax.gid, 10);
    if (pax.mtime) mtimeMs = Math.floor(parseFloat(pax.mtime) * 1000);
    this.longName = this.longLink = this.pax = undefined;
    let type = TYPES[flag];
    if (!type) throw new TarError(`unhandled tar header type ${flag.charCodeAt(0)}`);
    if (type === 'file' && name.endsWith('/')) type = 'directory';
    // Only regular files carry data in the archive (a hard link's or a directory's size is not read).
    const dataSize = type === 'file' ? size : 0;
    const offset = this.pos;
    if (dataSize) this.want = { kind: 'data', n: dataSize, pad: (512 - (dataSize % 512)) % 512 };
    return { name, type, mode: num(b, 100, 8), uid, gid, size: dataSize, mtimeMs, linkname, devmajor: num(b, 329, 8), devminor: num(b, 337, 8), offset };
  }
}
