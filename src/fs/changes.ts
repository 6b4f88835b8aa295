// The engine's "naive" filesystem diff (ChangesDirs), which is what it answers with on these hosts: two trees
// (the container's filesystem and its parent, the image plus the init layer) are compared entry by entry.
// A directory is modified when its mode, owner or device differ (not its size or mtime); anything else also when
// its mtime (to the nanosecond) or size differ. Something new is added and everything under it too; something
// gone is deleted (only the top of a deleted tree is listed); a directory with changes inside is listed as
// modified just before them. Siblings come in byte order, additions and modifications before deletions.
import * as fs from 'node:fs';
import type { Change } from '../types/archive';

interface Node {
  st: fs.BigIntStats;
  hostPath: string;
}

function lstat(p: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(p, { bigint: true });
  } catch {
    return undefined;
  }
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  } catch {
    return [];
  }
}

const S_IFMT = 0o170000n;
const S_IFDIR = 0o040000n;
const isDir = (st: fs.BigIntStats) => (st.mode & S_IFMT) === S_IFDIR;

function statDifferent(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  if (a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid || a.rdev !== b.rdev) return true;
  if (isDir(a)) return false;
  return a.mtimeNs !== b.mtimeNs || a.size !== b.size;
}

const join = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);

/** Changes of the tree at `newRoot` relative to the tree at `oldRoot` (host directories). */
export function naiveChanges(newRoot: string, oldRoot: string): Change[] {
  const changes: Change[] = [];
  const walk = (containerPath: string, cur: Node, old: Node | undefined, added: boolean): void => {
    const at = changes.length;
    let self = added;
    if (!old) {
      changes.push({ Path: containerPath, Kind: 1 });
      self = true;
    }
    if (!isDir(cur.st)) return;
    const oldChildren = new Set(old && isDir(old.st) ? list(old.hostPath) : []);
    for (const name of list(cur.hostPath)) {
      const curChild = lstat(`${cur.hostPath}/${name}`);
      if (!curChild) continue;
      const childPath = join(containerPath, name);
      const oldChild = oldChildren.has(name) && old ? lstat(`${old.hostPath}/${name}`) : undefined;
      let childAdded = false;
      if (oldChild) {
        if (statDifferent(oldChild, curChild)) {
          changes.push({ Path: childPath, Kind: 0 });
          childAdded = true;
        }
        oldChildren.delete(name);
      }
      walk(childPath, { st: curChild, hostPath: `${cur.hostPath}/${name}` }, oldChild ? { st: oldChild, hostPath: `${old!.hostPath}/${name}` } : undefined, childAdded);
    }
    for (const name of oldChildren) changes.push({ Path: join(containerPath, name), Kind: 2 });
    if (changes.length > at && !self && containerPath !== '/') changes.splice(at, 0, { Path: containerPath, Kind: 0 });
  };
  const rootNew = lstat(newRoot);
  const rootOld = lstat(oldRoot);
  if (!rootNew) return [];
  walk('/', { st: rootNew, hostPath: newRoot }, rootOld ? { st: rootOld, hostPath: oldRoot } : undefined, true);
  return changes;
}
