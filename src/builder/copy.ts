// COPY and ADD sources: wildcards matched in the context (or a stage's filesystem) as the engine matches them,
// the content checksum that keys the cache (`file:`, `dir:`, `multi:`), and the tar stream
// of the sources named for their destination, which fs/extract writes into the step's snapshot.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { Readable } from 'node:stream';
// (tar-stream is loaded at the first archive: an idle berth does not hold it)
import type * as tar from 'tar-stream';
import { BerthError, invalidParameter } from '../errors';
import * as fs from 'node:fs';
import { cleanPath, hostPathOf, resolveInScope, Scope } from '../fs/resolve';
import type { SourceFs, SourceStat } from './source-fs';

export interface SourceRoot {
  scope: Scope;
  fs: SourceFs;
  /** Whether this is the build context (its messages differ from a stage's). */
  isContext: boolean;
}

export interface CopySource {
  /** Where it is read. */
  fs: SourceFs;
  /** Path of the source in its SourceFs (symlinks inside the root resolved). */
  hostPath: string;
  /** Relative path in the root. */
  rel: string;
  isDir: boolean;
  /** The name it gets in a destination directory (the pattern's or the match's last element). */
  base: string;
  /** The user's pattern had a trailing slash or was a wildcard (for naming). */
  fromWildcard: boolean;
}

/** Go's path.Match for one path component pattern. */
function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw invalidParameter('syntax error in pattern');
      let cls = pattern.slice(i + 1, end);
      if (cls.startsWith('^')) cls = '!' + cls.slice(1);
      re += `[${cls.startsWith('!') ? '^' + cls.slice(1) : cls}]`;
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) re += '\\' + pattern[++i];
    else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

const hasWildcard = (p: string) => /[*?[]/.test(p);

function lexicallyOutside(p: string): boolean {
  const c = cleanPath(p);
  return c === '..' || c.startsWith('../');
}

/** Resolves one source pattern to the files it names (several for a wildcard). */
export function resolveSources(root: SourceRoot, pattern: string, instr: string): CopySource[] {
  const orig = pattern;
  if (root.isContext && lexicallyOutside(pattern)) throw invalidParameter(`${instr} failed: forbidden path outside the build context: ${orig} ()`);
  const clean = cleanPath(`/${pattern}`);
  const notFound = () =>
    root.isContext
      ? invalidParameter(`${instr} failed: file not found in build context or excluded by .dockerignore: stat ${orig.replace(/^\//, '')}: file does not exist`)
      : invalidParameter(`${instr} failed: stat ${clean}: file does not exist`);
  if (!hasWildcard(clean)) {
    const r = resolveInScope(root.scope, clean);
    const rel = r.containerPath.replace(/^\//, '');
    const st = root.fs.lstat(r.hostPath);
    if (!st || st.isSymbolicLink()) throw notFound();
    return [{ fs: root.fs, hostPath: r.hostPath, rel, isDir: st.isDirectory(), base: path.basename(clean), fromWildcard: false }];
  }
  // Walk component by component, matching wildcards against directory entries.
  const parts = clean.split('/').filter(Boolean);
  let current: string[] = [''];
  for (const part of parts) {
    const next: string[] = [];
    for (const dir of current) {
      if (!hasWildcard(part)) {
        next.push(dir ? `${dir}/${part}` : part);
        continue;
      }
      const re = globToRegExp(part);
      const host = resolveInScope(root.scope, `/${dir}`).hostPath;
      let names: string[] = [];
      try {
        names = root.fs.readdir(host).sort();
      } catch {
        continue;
      }
      for (const n of names) if (re.test(n)) next.push(dir ? `${dir}/${n}` : n);
    }
    current = next;
  }
  const out: CopySource[] = [];
  for (const rel of current) {
    const r = resolveInScope(root.scope, `/${rel}`);
    const st = root.fs.lstat(r.hostPath);
    // A dangling link matched: skipped as the engine skips it.
    if (st && !st.isSymbolicLink()) out.push({ fs: root.fs, hostPath: r.hostPath, rel: r.containerPath.replace(/^\//, ''), isDir: st.isDirectory(), base: path.basename(rel), fromWildcard: true });
  }
  if (out.length === 0) throw root.isContext ? invalidParameter(`${instr} failed: no source files were specified`) : notFound();
  return out;
}

export interface Entry {
  /** Path of the entry below the destination ('' is the destination itself). */
  name: string;
  fs: SourceFs;
  hostPath: string;
  st: SourceStat;
}

/** Every file of the sources, named relative to the destination directory (or the destination file). */
function* entriesOf(src: CopySource, asName: string): Generator<Entry> {
  const sfs = src.fs;
  const st = sfs.lstat(src.hostPath);
  if (!st) throw invalidParameter(`stat ${src.rel}: file does not exist`);
  if (!src.isDir) {
    yield { name: asName, fs: sfs, hostPath: src.hostPath, st };
    return;
  }
  // A directory: its contents (not itself) go into the destination.
  if (asName) yield { name: asName, fs: sfs, hostPath: src.hostPath, st };
  const walk = function* (hostDir: string, name: string): Generator<Entry> {
    for (const n of sfs.readdir(hostDir).sort()) {
      const hp = path.join(hostDir, n);
      const cst = sfs.lstat(hp);
      if (!cst) continue;
      const childName = name ? `${name}/${n}` : n;
      yield { name: childName, fs: sfs, hostPath: hp, st: cst };
      if (cst.isDirectory()) yield* walk(hp, childName);
    }
  };
  yield* walk(src.hostPath, asName);
}

/** Files hashed at once: libuv's threadpool has four threads; a few more keep them busy between reads. */
const HASH_PARALLEL = 8;

export interface CopyPlan {
  entries: Entry[];
  /** The cache's source id: `file:<sha>`, `dir:<sha>`, `multi:<sha>`. */
  checksum: string;
}

/**
 * Names the sources' files for the destination with the engine's rules: with several sources, or a destination
 * ending in `/`, the destination is a directory (each file under its base name, each directory's contents
 * merged in); a single file to a destination that is not an existing directory becomes that file.
 */
export async function planCopy(sources: CopySource[], destIsDir: boolean, instr: string): Promise<CopyPlan> {
  if (sources.length > 1 && !destIsDir) throw invalidParameter(`When using ${instr} with more than one source file, the destination must be a directory and end with a /`);
  const entries: Entry[] = [];
  for (const s of sources) {
    const asName = s.isDir ? '' : destIsDir ? s.base : '';
    for (const e of entriesOf(s, asName)) entries.push(e);
  }
  // The files' own digests first, several at a time in the threadpool (the event loop only collects them).
  const files = entries.filter((e) => e.st.isFile());
  const digests = new Map<Entry, Buffer>();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const e = files[next++];
      digests.set(e, await e.fs.hashAsync(e.hostPath, e.st));
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASH_PARALLEL, files.length) }, worker));
  const h = crypto.createHash('sha256');
  for (const e of entries) {
    // As the engine's tarsum: names, modes, sizes, link targets and content; not mtimes (directories that the
    // context's tar only implies get the extraction's time).
    h.update(`${e.name}\0${e.st.mode}\0${e.st.isFile() ? e.st.size : 0}\0`);
    if (e.st.isSymbolicLink()) h.update(e.fs.readlink(e.hostPath));
    else if (e.st.isFile()) h.update(digests.get(e)!);
  }
  const kind = sources.length > 1 ? 'multi' : sources[0].isDir ? 'dir' : 'file';
  return { entries, checksum: `${kind}:${h.digest('hex')}` };
}

/** The tar of the planned entries under `prefix` (the destination, no leading slash), owned by uid:gid. */
export function packEntries(entries: Entry[], prefix: string, owner: { uid: number; gid: number }): Readable {
  const pack = (require('tar-stream') as typeof tar).pack();
  void (async () => {
    try {
      for (const e of entries) {
        const name = [prefix, e.name].filter(Boolean).join('/') || '.';
        const base = { name, mode: e.st.mode & 0o7777, mtime: new Date(Math.floor(e.st.mtimeMs / 1000) * 1000), uid: owner.uid, gid: owner.gid };
        if (e.st.isDirectory()) pack.entry({ ...base, type: 'directory' });
        else if (e.st.isSymbolicLink()) pack.entry({ ...base, type: 'symlink', linkname: e.fs.readlink(e.hostPath) });
        else if (e.st.isFile()) {
          await new Promise<void>((resolve, reject) => {
            const w = pack.entry({ ...base, type: 'file', size: e.st.size }, (err) => (err ? reject(err) : resolve()));
            e.fs.open(e.hostPath, e.st).on('error', reject).pipe(w);
          });
        }
      }
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  return pack as unknown as Readable;
}

export { BerthError };

const UMASK = process.umask();
/** Files written at once (the file creations are what a COPY costs; the disk takes them in parallel). */
const WRITERS = 8;
const SMALL = 1 << 20;

/**
 * Writes the planned entries under the container directory `target` of `scope` (a step's mounted snapshot) with
 * the same outcome as fs/extract unpacking packEntries' tar there: each entry's parent resolved in the scope
 * (created 0755 root where missing), an existing entry replaced unless both are directories, owner, mode and
 * mtime set, directories' mtimes last. Directories and links are made first, in order, then the files several at
 * a time. Returns false (nothing written) when two entries share a name, where only the tar's order decides.
 */
export async function writeEntries(scope: Scope, target: string, entries: Entry[], owner: { uid: number; gid: number }): Promise<boolean> {
  const named = entries.map((e) => ({ e, path: cleanPath(`${target}/${e.name}`) })).filter((x) => x.path !== cleanPath(target));
  if (new Set(named.map((x) => x.path)).size !== named.length) return false;
  const parents = new Map<string, string>();
  const hostOf = (p: string): string => {
    const slash = p.lastIndexOf('/');
    const dir = p.slice(0, slash) || '/';
    let parent = parents.get(dir);
    if (parent === undefined) {
      parent = resolveInScope(scope, dir).containerPath;
      ensureDirIn(scope, parent);
      parents.set(dir, parent);
    }
    return hostPathOf(scope, `${parent === '/' ? '' : parent}/${p.slice(slash + 1)}`).hostPath;
  };
  const clear = (host: string, isDir: boolean) => {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(host);
    } catch {
      return false;
    }
    if (st.isDirectory() && isDir) return true;
    fs.rmSync(host, { recursive: true, force: true });
    return false;
  };
  const mtimeOf = (e: Entry) => new Date(Math.floor(e.st.mtimeMs / 1000) * 1000);
  const dirs: { host: string; mtime: Date }[] = [];
  const files: { host: string; e: Entry }[] = [];
  for (const { e, path: p } of named) {
    if (e.st.isFile()) {
      files.push({ host: hostOf(p), e });
      continue;
    }
    const host = hostOf(p);
    const mode = e.st.mode & 0o7777;
    if (e.st.isDirectory()) {
      if (!clear(host, true)) fs.mkdirSync(host, { mode: mode & 0o777 });
      fs.lchownSync(host, owner.uid, owner.gid);
      fs.chmodSync(host, mode);
      dirs.push({ host, mtime: mtimeOf(e) });
      // Its children's parent is this directory (no symlink to resolve).
      parents.set(p, resolveInScope(scope, p).containerPath);
    } else if (e.st.isSymbolicLink()) {
      clear(host, false);
      fs.symlinkSync(e.fs.readlink(e.hostPath), host);
      fs.lchownSync(host, owner.uid, owner.gid);
      fs.lutimesSync(host, mtimeOf(e), mtimeOf(e));
    }
  }
  let next = 0;
  const writer = async () => {
    while (next < files.length) {
      const { host, e } = files[next++];
      clear(host, false);
      const mode = e.st.mode & 0o7777;
      const fh = await fs.promises.open(host, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
      try {
        if (e.st.size <= SMALL) {
          const buf = await e.fs.readAll(e.hostPath, e.st);
          if (buf.length) await fh.write(buf);
        } else {
          for await (const chunk of e.fs.open(e.hostPath, e.st) as AsyncIterable<Buffer>) await fh.write(chunk);
        }
        await fh.chown(owner.uid, owner.gid);
        // open's mode lost what the umask takes; chown clears set-id bits.
        if (mode & (UMASK | 0o7000)) await fh.chmod(mode);
        await fh.utimes(mtimeOf(e), mtimeOf(e));
      } finally {
        await fh.close();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITERS, files.length) }, writer));
  for (const d of dirs.reverse()) fs.utimesSync(d.host, d.mtime, d.mtime);
  return true;
}

/** Makes a resolved container directory exist (missing components 0755 root:root), as fs/extract's unpack does. */
function ensureDirIn(scope: Scope, containerPath: string): void {
  let cur = '';
  for (const part of containerPath.split('/').filter(Boolean)) {
    cur += `/${part}`;
    const { hostPath } = hostPathOf(scope, cur);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(hostPath);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) continue;
    if (st) throw invalidParameter(`mkdir ${cur}: not a directory`);
    fs.mkdirSync(hostPath, { mode: 0o755 });
    fs.lchownSync(hostPath, 0, 0);
  }
}
