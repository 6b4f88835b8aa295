// Where COPY/ADD sources and the Dockerfile are read from: a host directory (a git checkout, a downloaded
// Dockerfile, a stage's filesystem) or the build context's tar as uploaded, kept on disk unextracted with an
// index of its entries in memory (names, kinds, modes, sizes and data offsets). The index applies the entries as
// an extraction would (later entries replace earlier ones, parents are implied, a path through a symlink is
// resolved inside the context), so reading it is reading the directory the tar would have made.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { cleanPath, FsProbe, resolveInScope, Scope } from '../fs/resolve';
import { hostProbe } from '../services/filesystem';
import type { TarHeader, TarSink } from './tar-scan';
import { TarError } from './tar-scan';

/** The part of fs.Stats the builder reads. */
export interface SourceStat {
  mode: number;
  size: number;
  mtimeMs: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** Paths are the `hostPath` of a resolution in the source's scope. */
export interface SourceFs {
  lstat(p: string): SourceStat | undefined;
  readdir(p: string): string[];
  readlink(p: string): string;
  /** A regular file's content. */
  open(p: string, st: SourceStat): Readable;
  /** A regular file's content in one buffer (files up to a few MB). */
  readAll(p: string, st: SourceStat): Promise<Buffer>;
  /** sha256 of a regular file's content. */
  hash(p: string, st: SourceStat): Buffer;
  /** The same, computed off the event loop (read and digest in libuv's threadpool) for files up to HASH_WHOLE. */
  hashAsync(p: string, st: SourceStat): Promise<Buffer>;
  /** The first bytes of a regular file. */
  head(p: string, n: number): Buffer;
  /** A whole (small) regular file; undefined when it is not one. */
  readFile(p: string): Buffer | undefined;
}

/** Files up to this size are read whole and digested in the threadpool (crypto.subtle); larger ones are streamed. */
export const HASH_WHOLE = 4 << 20;

async function digest(b: Buffer): Promise<Buffer> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', b));
}

export const hostFs: SourceFs = {
  lstat(p) {
    try {
      return fs.lstatSync(p);
    } catch {
      return undefined;
    }
  },
  readdir: (p) => fs.readdirSync(p),
  readlink: (p) => fs.readlinkSync(p),
  open: (p) => fs.createReadStream(p),
  readAll: (p) => fs.promises.readFile(p),
  hash(p) {
    const h = crypto.createHash('sha256');
    const fd = fs.openSync(p, 'r');
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, null);
        if (n <= 0) break;
        h.update(buf.subarray(0, n));
      }
    } finally {
      fs.closeSync(fd);
    }
    return h.digest();
  },
  async hashAsync(p, st) {
    return st.size > HASH_WHOLE ? hostFs.hash(p, st) : digest(await fs.promises.readFile(p));
  },
  readFile(p) {
    try {
      return fs.statSync(p).isFile() ? fs.readFileSync(p) : undefined;
    } catch {
      return undefined;
    }
  },
  head(p, n) {
    const fd = fs.openSync(p, 'r');
    try {
      const b = Buffer.alloc(n);
      return b.subarray(0, fs.readSync(fd, b, 0, n, 0));
    } finally {
      fs.closeSync(fd);
    }
  },
};

/** A host directory as a source root. */
export function hostScope(root: string): Scope {
  return { root, mounts: [], probe: hostProbe };
}

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const S_IFIFO = 0o010000;

interface Node extends SourceStat {
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** Data offset in the archive (regular files). */
  offset: number;
  linkname: string;
  children?: Map<string, Node>;
  /** sha256 of a regular file's content, computed as it arrived (see `sink`). */
  digest?: Promise<Buffer>;
}

function node(kind: Node['kind'], mode: number, size: number, mtimeMs: number, offset = 0, linkname = ''): Node {
  return {
    kind,
    mode,
    size,
    mtimeMs,
    offset,
    linkname,
    children: kind === 'dir' ? new Map() : undefined,
    isFile: () => kind === 'file',
    isDirectory: () => kind === 'dir',
    isSymbolicLink: () => kind === 'symlink',
  };
}

const TYPE_BITS: Record<string, number> = { file: S_IFREG, directory: S_IFDIR, symlink: S_IFLNK, 'character-device': S_IFCHR, 'block-device': S_IFBLK, fifo: S_IFIFO };

/** Bytes of arriving files handed to the threadpool for their digest and not yet digested, at most (see `sink`). */
const PREHASH_IN_FLIGHT = 1 << 20;

/**
 * The context's tar on disk and its index. Paths are container-style (`/a/b`, the context's root `/`); the scope
 * resolves them with the index as its filesystem.
 */
export class TarContextFs implements SourceFs {
  private readonly root = node('dir', S_IFDIR | 0o755, 0, Date.now());
  readonly scope: Scope;
  private fd: number | undefined;

  constructor(readonly file: string) {
    const probe: FsProbe = {
      lstat: (p) => {
        const n = this.find(p);
        return !n ? undefined : n.kind === 'dir' ? 'dir' : n.kind === 'symlink' ? 'symlink' : 'other';
      },
      readlink: (p) => this.readlink(p),
    };
    this.scope = { root: '/', mounts: [], probe };
  }

  /** The node at a clean, symlink-free path. */
  private find(p: string): Node | undefined {
    let n: Node | undefined = this.root;
    for (const part of p.split('/')) {
      if (!part) continue;
      n = n?.children?.get(part);
      if (!n) return undefined;
    }
    return n;
  }

  /** How many files were digested on arrival, their bytes, and how many were left for later (the debug log). */
  readonly prehash = { files: 0, bytes: 0, skipped: 0 };

  /**
   * What the upload's scan feeds (context.ts): each header applied to the index and each regular file's content
   * digested as it goes by, in libuv's threadpool (crypto.subtle), so that a COPY of it later reads and hashes
   * nothing (the engine, too, checksums the whole context as it receives it). Opportunistic: at most
   * PREHASH_IN_FLIGHT bytes wait for the threadpool at once (more queued there held up the context file's own
   * writes, which share it: the upload ran at a fraction of its rate on a loaded machine); a file arriving while
   * they do is left to be digested from the tar if a COPY names it.
   */
  sink(): TarSink {
    let inFlight = 0;
    // A file's pieces are copied here as they come (never kept: holding the request's chunks until a file is
    // complete kept them alive past the young generation and made the upload collect far more often).
    let scratch: Buffer | undefined;
    let cur: { node: Node; got: number } | undefined;
    const start = (n: Node, bytes: Buffer) => {
      const size = n.size;
      // crypto.subtle copies the bytes before it returns; the digest runs in the threadpool.
      const p = digest(bytes);
      p.catch(() => undefined).finally(() => (inFlight -= size));
      n.digest = p;
    };
    return {
      header: (h) => {
        const n = this.add(h);
        cur = n && n.size <= HASH_WHOLE && (inFlight === 0 || inFlight + n.size <= PREHASH_IN_FLIGHT) ? { node: n, got: 0 } : undefined;
        if (cur) {
          inFlight += n!.size;
          this.prehash.files++;
          this.prehash.bytes += n!.size;
        } else if (n) this.prehash.skipped++;
      },
      data: (bytes, last) => {
        if (!cur) return;
        const n = cur.node;
        if (last && cur.got === 0) {
          cur = undefined;
          return start(n, bytes);
        }
        if (!scratch || scratch.length < n.size) scratch = Buffer.allocUnsafe(Math.max(n.size, Math.min(HASH_WHOLE, (scratch?.length ?? 0) * 2)));
        cur.got += bytes.copy(scratch, cur.got);
        if (!last) return;
        cur = undefined;
        start(n, scratch.subarray(0, n.size));
      },
    };
  }

  /** Applies one header as the engine's unpack would apply it to an empty directory; the node of a regular file. */
  add(h: TarHeader): Node | undefined {
    const name = cleanPath(h.name);
    if (name === '..' || name.startsWith('../')) throw new TarError(`"${name}" is outside of "/"`);
    const joined = cleanPath(`/${name}`);
    if (joined === '/') return;
    const slash = joined.lastIndexOf('/');
    const base = joined.slice(slash + 1);
    const parent = this.ensureDir(joined.slice(0, slash) || '/');
    const existing = parent.children!.get(base);
    const mode = (h.mode & 0o7777) | (TYPE_BITS[h.type] ?? 0);
    switch (h.type) {
      case 'directory':
        if (existing?.kind === 'dir') {
          existing.mode = S_IFDIR | (h.mode & 0o7777);
          existing.mtimeMs = h.mtimeMs;
        } else parent.children!.set(base, node('dir', mode, 0, h.mtimeMs));
        return;
      case 'file': {
        const n = node('file', mode, h.size, h.mtimeMs, h.offset);
        parent.children!.set(base, n);
        return n;
      }
      case 'symlink':
        // Its target is resolved in the context whenever it is followed, so no target leads out.
        parent.children!.set(base, node('symlink', mode, h.linkname.length, h.mtimeMs, 0, h.linkname));
        return;
      case 'link': {
        // A hard link shares its target's data (and, as one inode, its mode).
        const target = resolveInScope(this.scope, cleanPath(`/${h.linkname}`), { followFinal: false });
        const t = this.find(target.containerPath);
        if (!t || t.kind === 'dir') throw new TarError(`link ${h.linkname} ${joined}: no such file or directory`);
        parent.children!.set(base, t);
        return;
      }
      default:
        parent.children!.set(base, node('other', mode, 0, h.mtimeMs));
    }
  }

  /** The directory at a path, made (0755, as unpack makes missing parents) where missing; symlinks resolved in the context. */
  private ensureDir(p: string): Node {
    const r = resolveInScope(this.scope, p);
    let n = this.root;
    for (const part of r.containerPath.split('/')) {
      if (!part) continue;
      let c = n.children!.get(part);
      if (!c) {
        c = node('dir', S_IFDIR | 0o755, 0, Date.now());
        n.children!.set(part, c);
      }
      if (c.kind !== 'dir') throw new TarError(`mkdir ${r.containerPath}: not a directory`);
      n = c;
    }
    return n;
  }

  /** Takes an entry out (the Dockerfile or .dockerignore when .dockerignore excludes them). */
  remove(p: string): void {
    const slash = p.lastIndexOf('/');
    this.find(p.slice(0, slash) || '/')?.children?.delete(p.slice(slash + 1));
  }

  lstat(p: string): SourceStat | undefined {
    return this.find(p);
  }

  readdir(p: string): string[] {
    const n = this.find(p);
    if (!n?.children) throw new Error(`readdir ${p}: not a directory`);
    return [...n.children.keys()];
  }

  readlink(p: string): string {
    const n = this.find(p);
    if (n?.kind !== 'symlink') throw new Error(`readlink ${p}: invalid argument`);
    return n.linkname;
  }

  private fdOf(): number {
    if (this.fd === undefined) this.fd = fs.openSync(this.file, 'r');
    return this.fd;
  }

  open(_p: string, st: SourceStat): Readable {
    const n = st as Node;
    if (!n.size) return Readable.from([]);
    return fs.createReadStream(this.file, { start: n.offset, end: n.offset + n.size - 1, highWaterMark: 1 << 20 });
  }

  async readAll(_p: string, st: SourceStat): Promise<Buffer> {
    const b = Buffer.allocUnsafe(st.size);
    const got = this.read(st, b, 0, st.size);
    if (got !== st.size) throw new Error(`context.tar: short read`);
    return b;
  }

  /** Reads a regular file's bytes [from, from+len) into buf; the count read. */
  read(st: SourceStat, buf: Buffer, from: number, len: number): number {
    const n = st as Node;
    return fs.readSync(this.fdOf(), buf, 0, Math.min(len, n.size - from), n.offset + from);
  }

  async hashAsync(p: string, st: SourceStat): Promise<Buffer> {
    const n = st as Node;
    if (n.digest) {
      const d = await n.digest.catch(() => undefined);
      if (d) return d;
    }
    if (st.size > HASH_WHOLE) return this.hash(p, st);
    const b = Buffer.allocUnsafe(n.size);
    const fd = this.fdOf();
    for (let done = 0; done < n.size; ) {
      const got = await new Promise<number>((resolve, reject) => fs.read(fd, b, done, n.size - done, n.offset + done, (err, k) => (err ? reject(err) : resolve(k))));
      if (got <= 0) throw new Error('context.tar: short read');
      done += got;
    }
    return digest(b);
  }

  hash(_p: string, st: SourceStat): Buffer {
    const h = crypto.createHash('sha256');
    const buf = Buffer.allocUnsafe(Math.min(st.size, 1 << 20));
    for (let done = 0; done < st.size; ) {
      const got = this.read(st, buf, done, buf.length);
      if (got <= 0) break;
      h.update(buf.subarray(0, got));
      done += got;
    }
    return h.digest();
  }

  head(p: string, n: number): Buffer {
    const st = this.find(p);
    if (!st?.isFile()) return Buffer.alloc(0);
    const b = Buffer.alloc(Math.min(n, st.size));
    return b.subarray(0, this.read(st, b, 0, b.length));
  }

  /** The whole of a (small) regular file. */
  readFile(p: string): Buffer | undefined {
    const st = this.find(p);
    if (!st?.isFile()) return undefined;
    return this.head(p, st.size);
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
