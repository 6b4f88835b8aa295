// Unpacks a tar into a directory of a container's filesystem with the engine's Unpack semantics, but without a
// chroot: every entry's parent is resolved in the container's scope (resolve.ts), the entry itself is never
// followed (an existing one is removed first, files are created O_EXCL|O_NOFOLLOW), names that climb out of the
// destination and link targets that leave it are refused as the engine refuses them, and writes into a
// read-only mount (or a read-only root filesystem) are refused.
import * as fs from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
// (tar-stream is loaded at the first archive: an idle berth does not hold it)
import type * as tar from 'tar-stream';
import { BerthError, forbidden, invalidParameter, systemError } from '../errors';
import { cleanPath, hostPathOf, isWithin, mountOf, resolveInScope, Scope } from './resolve';

const execFileP = promisify(execFile);

export interface ExtractOptions {
  /** Refuse to replace a directory with a non-directory or the reverse. */
  noOverwriteDirNonDir: boolean;
  readonlyRootfs: boolean;
}

/** The engine's untar failures read "Error processing tar file(exit status 1): ..." (the re-exec'd untar's exit). */
function tarError(msg: string, kind: 'System' | 'InvalidParameter' = 'System'): BerthError {
  const full = `Error processing tar file(exit status 1): ${msg}`;
  return kind === 'System' ? systemError(full) : invalidParameter(full);
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function checkWritable(scope: Scope, containerPath: string, opts: ExtractOptions): void {
  const m = mountOf(scope.mounts, containerPath);
  if (m ? !m.rw : opts.readonlyRootfs) throw forbidden(m ? 'mounted volume is marked read-only' : 'container rootfs is marked read-only');
}

/** Makes sure a container directory exists (creating missing components, 0755 root:root), following symlinks in scope. */
function ensureDir(scope: Scope, containerPath: string, opts: ExtractOptions): string {
  const r = resolveInScope(scope, containerPath);
  const parts = r.containerPath.split('/').filter(Boolean);
  let cur = '';
  for (const part of parts) {
    cur += `/${part}`;
    const { hostPath } = hostPathOf(scope, cur);
    const st = lstatOrUndefined(hostPath);
    if (st?.isDirectory()) continue;
    if (st) throw tarError(`mkdir ${cur}: not a directory`);
    checkWritable(scope, cur, opts);
    fs.mkdirSync(hostPath, { mode: 0o755 });
    fs.lchownSync(hostPath, 0, 0);
  }
  return r.containerPath;
}

async function writeFile(hostPath: string, mode: number, entry: AsyncIterable<Buffer>): Promise<void> {
  const fh = await fs.promises.open(hostPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode & 0o7777);
  try {
    for await (const chunk of entry) await fh.write(chunk);
  } finally {
    await fh.close();
  }
}

interface EntryStream extends AsyncIterable<Buffer> {
  header: tar.Header;
  resume(): void;
}

const MOUNT_BUSY = (p: string) => tarError(`unlinkat ${p}: device or resource busy`);

/**
 * Extracts `input` into the container directory `dest` (a clean, resolved container path that exists and is a
 * directory). Resolves when every entry is written; rejects with the first failure (entries before it stay).
 */
export async function extractTar(scope: Scope, dest: string, input: Readable, opts: ExtractOptions): Promise<void> {
  const ex = (require('tar-stream') as typeof tar).extract();
  input.on('error', (err) => ex.destroy(err));
  input.pipe(ex as unknown as NodeJS.WritableStream);
  const dirs: { hostPath: string; mtime: Date }[] = [];
  try {
    for await (const entry of ex as unknown as AsyncIterable<EntryStream>) {
      await extractEntry(scope, dest, entry.header, entry, opts, dirs);
      entry.resume(); // drain whatever the entry did not read
    }
  } catch (err) {
    input.unpipe(ex as unknown as NodeJS.WritableStream);
    input.resume();
    if (err instanceof BerthError) throw err;
    throw tarError((err as Error).message);
  }
  for (const d of dirs) {
    try {
      fs.utimesSync(d.hostPath, d.mtime, d.mtime);
    } catch {
      /* removed by a later entry */
    }
  }
}

async function extractEntry(scope: Scope, dest: string, hdr: tar.Header, entry: AsyncIterable<Buffer>, opts: ExtractOptions, dirs: { hostPath: string; mtime: Date }[]): Promise<void> {
  const type: string = hdr.type ?? 'file';
  if (type === 'pax-global-header' || type === 'pax-header' || type === 'gnu-long-path' || type === 'gnu-long-link-path') return;
  const name = cleanPath(hdr.name);
  // filepath.Join(dest, name): an absolute name is still below dest; a name climbing out of it is refused.
  const joined = cleanPath(`${dest}/${name}`);
  if (name === '..' || name.startsWith('../') || !isWithin(dest, joined)) throw tarError(`"${name}" is outside of "${dest}"`);
  if (joined === dest) return; // "." : the destination itself is left alone
  const slash = joined.lastIndexOf('/');
  const base = joined.slice(slash + 1);
  const parent = ensureDir(scope, joined.slice(0, slash) || '/', opts);
  const target = parent === '/' ? `/${base}` : `${parent}/${base}`;
  checkWritable(scope, target, opts);
  const isMountPoint = scope.mounts.some((m) => m.destination === target);
  const { hostPath } = hostPathOf(scope, target);
  const existing = lstatOrUndefined(hostPath);
  const isDirEntry = type === 'directory';
  if (existing) {
    if (opts.noOverwriteDirNonDir && existing.isDirectory() && !isDirEntry)
      throw tarError(`cannot overwrite directory "${target}" with non-directory "${dest}"`, 'InvalidParameter');
    if (opts.noOverwriteDirNonDir && !existing.isDirectory() && isDirEntry)
      throw tarError(`cannot overwrite non-directory "${target}" with directory "${dest}"`, 'InvalidParameter');
    if (!(existing.isDirectory() && isDirEntry)) {
      if (isMountPoint) throw MOUNT_BUSY(target);
      fs.rmSync(hostPath, { recursive: true, force: true });
    }
  }
  const mode = hdr.mode ?? 0o644;
  const mtime = hdr.mtime ?? new Date();
  switch (type) {
    case 'directory':
      if (!existing?.isDirectory()) fs.mkdirSync(hostPath, { mode: mode & 0o777 });
      break;
    case 'file':
    case 'contiguous-file':
      await writeFile(hostPath, mode, entry);
      break;
    case 'symlink': {
      const linkname = hdr.linkname ?? '';
      // The engine's check is lexical and relative to the destination: an absolute target stays below it.
      const lexicalPath = joined;
      const targetPath = cleanPath(`${lexicalPath.slice(0, lexicalPath.lastIndexOf('/')) || '/'}/${linkname}`);
      if (!isWithin(dest, targetPath)) throw tarError(`invalid symlink "${lexicalPath}" -> "${linkname}"`);
      fs.symlinkSync(linkname, hostPath);
      break;
    }
    case 'link': {
      const linkname = hdr.linkname ?? '';
      const targetPath = cleanPath(`${dest}/${linkname}`);
      if (!isWithin(dest, targetPath)) throw tarError(`invalid hardlink "${targetPath}" -> "${linkname}"`);
      const src = resolveInScope(scope, targetPath, { followFinal: false });
      fs.linkSync(src.hostPath, hostPath);
      break;
    }
    case 'character-device':
    case 'block-device':
      await execFileP('mknod', ['-m', (mode & 0o7777).toString(8), hostPath, type === 'block-device' ? 'b' : 'c', String(hdr.devmajor ?? 0), String(hdr.devminor ?? 0)]);
      break;
    case 'fifo':
      await execFileP('mkfifo', ['-m', (mode & 0o7777).toString(8), hostPath]);
      break;
    default:
      throw tarError(`unhandled tar header type ${String(type)}`);
  }
  fs.lchownSync(hostPath, hdr.uid ?? 0, hdr.gid ?? 0);
  const st = fs.lstatSync(hostPath);
  if (!st.isSymbolicLink()) fs.chmodSync(hostPath, mode & 0o7777);
  if (type === 'directory') dirs.push({ hostPath, mtime });
  else if (st.isSymbolicLink()) fs.lutimesSync(hostPath, mtime, mtime);
  else fs.utimesSync(hostPath, mtime, mtime);
}
