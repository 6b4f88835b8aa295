// Path resolution inside a container's filesystem, the way the engine's FollowSymlinkInScope does it: a path is
// cleaned lexically first (`/a/../b` is `/b`, `..` never climbs above `/`), then walked one component at a time;
// a symbolic link is expanded in place, an absolute target restarting from the container's root, so no path or
// link can name anything outside the root. Volumes and bind mounts are part of the container's view: a component
// at or under a mount's destination is looked up in the mount's host source.
//
// Pure: the filesystem is reached only through the FsProbe the caller gives, so the walk is unit-tested against
// an in-memory tree.

export type EntryKind = 'dir' | 'symlink' | 'other';

export interface FsProbe {
  /** Kind of the entry at a host path without following a final symlink; undefined when absent (or a parent is not a directory). */
  lstat(hostPath: string): EntryKind | undefined;
  readlink(hostPath: string): string;
}

export interface ScopeMount {
  /** Clean absolute path inside the container. */
  destination: string;
  /** Host path (directory, or file for file binds such as /etc/hosts). */
  source: string;
  rw: boolean;
}

export interface Scope {
  /** Host directory holding the container's root filesystem. */
  root: string;
  mounts: ScopeMount[];
  probe: FsProbe;
}

export interface Resolved {
  /** Clean absolute path inside the container with every symlink expanded (except a final one when not followed). */
  containerPath: string;
  hostPath: string;
  /** The mount holding it, if any. */
  mount?: ScopeMount;
}

export class TooManyLinksError extends Error {
  constructor(p: string) {
    super(`too many links in ${p}`);
  }
}

const MAX_LINKS = 255;

/** Go's filepath.Clean for slash paths. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(c);
  }
  const s = out.join('/');
  return rooted ? `/${s}` : s || '.';
}

/** The container path for a user-given path: relative paths are relative to the root. */
export function containerAbs(p: string): string {
  return cleanPath(`/${p}`);
}

/**
 * The engine's PreserveTrailingDotOrSeparator: a cleaned path keeps the original's trailing `/.` or `/`, which
 * assert "the directory's contents" and "a directory".
 */
export function preserveTrailing(cleaned: string, original: string): string {
  let out = cleaned;
  if (baseName(out) !== '.' && baseName(original) === '.') {
    if (!out.endsWith('/')) out += '/';
    out += '.';
  }
  if (!out.endsWith('/') && original.endsWith('/')) out += '/';
  return out;
}

/** Go's filepath.Base for slash paths (`/` for the root, `.` for the empty path). */
export function baseName(p: string): string {
  if (p === '') return '.';
  const s = p.replace(/\/+$/, '');
  if (s === '') return '/';
  return s.slice(s.lastIndexOf('/') + 1);
}

/** Go's filepath.Split: dir keeps its trailing slash. */
export function splitPath(p: string): [string, string] {
  const i = p.lastIndexOf('/');
  return [p.slice(0, i + 1), p.slice(i + 1)];
}

/** Whether container path `p` is `base` or below it (both clean and absolute). */
export function isWithin(base: string, p: string): boolean {
  return base === '/' || p === base || p.startsWith(`${base}/`);
}

/** The mount holding a clean container path: the one with the longest destination that contains it. */
export function mountOf(mounts: ScopeMount[], containerPath: string): ScopeMount | undefined {
  let best: ScopeMount | undefined;
  for (const m of mounts) if (isWithin(m.destination, containerPath) && (!best || m.destination.length > best.destination.length)) best = m;
  return best;
}

/** Host path of a clean, symlink-free container path. */
export function hostPathOf(scope: Pick<Scope, 'root' | 'mounts'>, containerPath: string): { hostPath: string; mount?: ScopeMount } {
  const m = mountOf(scope.mounts, containerPath);
  if (m) {
    const rest = containerPath.slice(m.destination === '/' ? 0 : m.destination.length);
    return { hostPath: joinHost(m.source, rest), mount: m };
  }
  return { hostPath: joinHost(scope.root, containerPath) };
}

function joinHost(base: string, rest: string): string {
  const r = rest.replace(/^\/+/, '');
  if (!r) return base;
  return base.endsWith('/') ? base + r : `${base}/${r}`;
}

/**
 * Resolves a path (absolute, or relative to the container root) in the container's scope. Components that do
 * not exist are kept as they are (the caller finds out when it uses the result). With `followFinal` false a final
 * symlink is not expanded (as `lstat` would see it).
 */
export function resolveInScope(scope: Scope, path: string, opts: { followFinal?: boolean } = {}): Resolved {
  const followFinal = opts.followFinal ?? true;
  let todo = containerAbs(path).split('/').filter(Boolean);
  const done: string[] = [];
  let links = 0;
  while (todo.length) {
    const c = todo.shift()!;
    if (c === '.' || c === '') continue;
    if (c === '..') {
      done.pop();
      continue;
    }
    const last = todo.length === 0;
    const candidate = `/${[...done, c].join('/')}`;
    if (last && !followFinal) {
      done.push(c);
      break;
    }
    const { hostPath } = hostPathOf(scope, candidate);
    // A mount's destination is never a symlink in the container's view: the mount covers it.
    const isMountPoint = scope.mounts.some((m) => m.destination === candidate);
    if (!isMountPoint && scope.probe.lstat(hostPath) === 'symlink') {
      if (++links > MAX_LINKS) throw new TooManyLinksError(containerAbs(path));
      const target = scope.probe.readlink(hostPath);
      if (target.startsWith('/')) done.length = 0;
      todo = [...target.split('/').filter(Boolean), ...todo];
      continue;
    }
    done.push(c);
  }
  const containerPath = `/${done.join('/')}`;
  return { containerPath, ...hostPathOf(scope, containerPath) };
}

/**
 * The engine's ResolvePath for archive reads: the directory part is resolved in scope, the last element is kept
 * as given (a symlink there is reported, not followed), and a trailing `/` or `/.` is kept.
 */
export function resolveForArchive(scope: Scope, userPath: string): { absPath: string; resolved: Resolved; trailing: '' | '/' | '/.' } {
  const absPath = preserveTrailing(containerAbs(userPath), userPath);
  const trailing = absPath.endsWith('/.') ? '/.' : absPath.endsWith('/') && absPath !== '/' ? '/' : '';
  const bare = trailing ? absPath.slice(0, absPath.length - trailing.length) || '/' : absPath;
  const [dir, base] = splitPath(bare);
  const dirRes = resolveInScope(scope, dir || '/');
  if (!base) return { absPath, resolved: dirRes, trailing };
  // With a trailing separator the last element must be a directory, so a symlink there is followed.
  const resolved = resolveInScope(scope, `${dirRes.containerPath}/${base}${trailing ? '/' : ''}`, { followFinal: !!trailing });
  return { absPath, resolved, trailing };
}
