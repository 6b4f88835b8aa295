// Writes a tar of part of a container's filesystem the way the engine's TarWithOptions does: entries in lexical
// order per directory, directories named with a trailing slash, mtimes truncated to the second, hard links
// recorded once and linked after, sockets skipped, owner names looked up on the host (as Go's archive/tar does).
// The walk follows the container's view: a volume or bind mounted at a path is walked in its host source.
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
// (tar-stream is loaded at the first archive: an idle berth does not hold it)
import type * as tar from 'tar-stream';
import { hostPathOf, Scope } from './resolve';

export interface PackSource {
  /** Clean container path of the resource (a final symlink is archived as a link). */
  containerPath: string;
  /**
   * Name of the resource in the archive; descendants are named `<rebase>/<rel>` (`/rel` for the empty rebase).
   * null: the resource itself is not archived and descendants are named by their relative path (export).
   */
  rebase: string | null;
}

interface IdNames {
  users: Map<number, string>;
  groups: Map<number, string>;
}

function hostNames(): IdNames {
  const read = (f: string) => {
    const m = new Map<number, string>();
    try {
      for (const l of fs.readFileSync(f, 'utf8').split('\n')) {
        const p = l.split(':');
        if (p.length > 2 && /^\d+$/.test(p[2]) && !m.has(Number(p[2]))) m.set(Number(p[2]), p[0]);
      }
    } catch {
      /* no names */
    }
    return m;
  };
  return { users: read('/etc/passwd'), groups: read('/etc/group') };
}

const S_IFMT = 0o170000;

function entryType(mode: number): tar.Header['type'] | undefined {
  switch (mode & S_IFMT) {
    case 0o040000:
      return 'directory';
    case 0o100000:
      return 'file';
    case 0o120000:
      return 'symlink';
    case 0o020000:
      return 'character-device';
    case 0o060000:
      return 'block-device';
    case 0o010000:
      return 'fifo';
    default:
      return undefined; // sockets (and anything else) are skipped
  }
}

function devNumbers(rdev: number): { devmajor: number; devminor: number } {
  const r = BigInt(rdev);
  return { devmajor: Number(((r >> 8n) & 0xfffn) | ((r >> 32n) & ~0xfffn)), devminor: Number((r & 0xffn) | ((r >> 12n) & 0xfff00n)) };
}

/** Children of a container directory: what its host directory holds plus mounts whose destination is right below it. */
function childrenOf(scope: Scope, containerDir: string, hostDir: string): string[] {
  const names = new Set<string>();
  try {
    for (const n of fs.readdirSync(hostDir)) names.add(n);
  } catch {
    /* unreadable: no children */
  }
  for (const m of scope.mounts) {
    const parent = m.destination.slice(0, m.destination.lastIndexOf('/')) || '/';
    if (parent === containerDir && m.destination !== '/') names.add(m.destination.slice(m.destination.lastIndexOf('/') + 1));
  }
  return [...names].sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
}

type EntrySink = ReturnType<tar.Pack['entry']>;

async function writeAll(sink: EntrySink, chunk: Buffer): Promise<void> {
  if (!sink.write(chunk)) await new Promise<void>((r) => sink.once('drain', () => r()));
}

/** Copies exactly `size` bytes of a file into the entry (zero-padded if it shrank meanwhile, cut if it grew). */
async function copyFile(hostPath: string, size: number, sink: EntrySink): Promise<void> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(hostPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    let left = size;
    const buf = Buffer.alloc(Math.min(1 << 20, Math.max(size, 1)));
    while (left > 0) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, left), null);
      if (bytesRead === 0) break;
      await writeAll(sink, Buffer.from(buf.subarray(0, bytesRead)));
      left -= bytesRead;
    }
    if (left > 0) await writeAll(sink, Buffer.alloc(left));
  } catch (err) {
    sink.destroy(err as Error);
    throw err;
  } finally {
    await fh?.close();
  }
  (sink as unknown as { end(): void }).end();
}

/** A tar stream of `src` in `scope`. The walk runs as the stream is read; errors destroy the stream. */
export function packTree(scope: Scope, src: PackSource): Readable {
  const pack = (require('tar-stream') as typeof tar).pack();
  const names = hostNames();
  const seen = new Map<string, string>();
  const nameOf = (rel: string): string => {
    if (src.rebase === null) return rel;
    if (!rel) return src.rebase;
    return `${src.rebase}/${rel}`;
  };

  const visit = async (containerPath: string, rel: string): Promise<void> => {
    const { hostPath } = hostPathOf(scope, containerPath);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(hostPath);
    } catch {
      return; // vanished while walking
    }
    const type = entryType(st.mode);
    if (!type) return;
    const include = !(src.rebase === null && rel === '');
    if (include) {
      let name = nameOf(rel);
      if (type === 'directory' && !name.endsWith('/')) name += '/';
      const header: Partial<tar.Header> & { name: string } = {
        name,
        mode: st.mode, // encoded as mode & 0o7777; never 0, which tar-stream would replace with a default
        uid: st.uid,
        gid: st.gid,
        uname: names.users.get(st.uid) ?? '',
        gname: names.groups.get(st.gid) ?? '',
        mtime: new Date(Math.floor(st.mtimeMs / 1000) * 1000),
        type,
        size: 0,
      };
      if (type === 'symlink') header.linkname = fs.readlinkSync(hostPath);
      if (type === 'character-device' || type === 'block-device') Object.assign(header, devNumbers(st.rdev));
      if (type === 'file' && st.nlink > 1) {
        const key = `${st.dev}:${st.ino}`;
        const first = seen.get(key);
        if (first !== undefined) {
          header.type = 'link';
          header.linkname = first;
        } else seen.set(key, name);
      }
      if (header.type === 'file') header.size = st.size;
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry(header, (err) => (err ? reject(err) : resolve()));
        if (header.type === 'file') copyFile(hostPath, st.size, sink).catch(reject);
      });
    }
    if (type === 'directory') {
      for (const child of childrenOf(scope, containerPath, hostPath)) {
        await visit(containerPath === '/' ? `/${child}` : `${containerPath}/${child}`, rel ? `${rel}/${child}` : child);
      }
    }
  };

  void visit(src.containerPath, '')
    .then(() => pack.finalize())
    .catch((err) => pack.destroy(err));
  return Readable.from(pack as AsyncIterable<Buffer>);
}
