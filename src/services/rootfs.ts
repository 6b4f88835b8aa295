// Reading files of an image's root filesystem without mounting it: the overlay mount options name the layer
// directories (top first); a file is taken from the first layer that has it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FsProbe } from '../fs/resolve';

export interface MountLike {
  type: string;
  source: string;
  options: string[];
}

/** Writable dir (upper) and read-only dirs (lower, top first) of a snapshot's mounts. */
export function layerDirs(mounts: MountLike[]): { upper?: string; lower: string[] } {
  const m = mounts[0];
  if (!m) return { lower: [] };
  if (m.type === 'bind') return { upper: m.options.includes('ro') ? undefined : m.source, lower: m.options.includes('ro') ? [m.source] : [] };
  const opt = (k: string) => m.options.find((o) => o.startsWith(`${k}=`))?.slice(k.length + 1);
  return { upper: opt('upperdir'), lower: (opt('lowerdir') ?? '').split(':').filter(Boolean) };
}

export function readLayered(dirs: string[], file: string): string | undefined {
  const rel = file.replace(/^\/+/, '');
  for (const d of dirs) {
    const p = path.join(d, rel);
    const wh = path.join(d, path.dirname(rel), `.wh.${path.basename(rel)}`);
    if (fs.existsSync(wh)) return undefined;
    try {
      return fs.readFileSync(p, 'utf8');
    } catch {
      /* next layer */
    }
  }
  return undefined;
}

/**
 * The entries of a snapshot's layers (top first) as its overlay shows them, for path resolution (fs/resolve) without
 * a mount: the first layer holding a path wins, an overlay whiteout (a 0:0 character device) or an OCI `.wh.` file
 * hides it, and a non-directory in a layer hides whatever lies below it there. Opaque directories (an xattr) are not
 * read: a lower layer's entry under one still shows.
 */
export function layeredProbe(dirs: string[]): FsProbe {
  const find = (p: string): { dir: string; st: fs.Stats } | undefined => {
    const rel = p.replace(/^\/+/, '');
    for (const d of dirs) {
      if (rel && fs.existsSync(path.join(d, path.dirname(rel), `.wh.${path.basename(rel)}`))) return undefined;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(path.join(d, rel));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
        continue;
      }
      if (st.isCharacterDevice() && st.rdev === 0) return undefined;
      return { dir: d, st };
    }
    return undefined;
  };
  return {
    lstat(p) {
      const f = find(p);
      return !f ? undefined : f.st.isSymbolicLink() ? 'symlink' : f.st.isDirectory() ? 'dir' : 'other';
    },
    readlink(p) {
      const f = find(p);
      if (!f) throw new Error(`readlink ${p}: no such file or directory`);
      return fs.readlinkSync(path.join(f.dir, p.replace(/^\/+/, '')));
    },
  };
}

export interface ResolvedUser {
  uid: number;
  gid: number;
  additionalGids: number[];
}

/**
 * The engine's user resolution: `user`, `user:group`, `uid`, `uid:gid`, names looked up in the container's
 * /etc/passwd and /etc/group; supplementary groups from /etc/group membership plus GroupAdd.
 */
export function resolveUser(spec: string, passwd: string | undefined, group: string | undefined, groupAdd: string[] = []): ResolvedUser {
  const users = (passwd ?? '').split('\n').filter(Boolean).map((l) => l.split(':'));
  const groups = (group ?? '').split('\n').filter(Boolean).map((l) => l.split(':'));
  const [u, g] = spec ? spec.split(':') : ['', undefined];
  let uid = 0;
  let gid = 0;
  let userName = 'root';
  if (u) {
    const entry = users.find((e) => e[0] === u) ?? (/^\d+$/.test(u) ? users.find((e) => e[2] === u) : undefined);
    if (entry) {
      uid = Number(entry[2]);
      gid = Number(entry[3]);
      userName = entry[0];
    } else if (/^\d+$/.test(u)) {
      uid = Number(u);
      userName = '';
    } else throw new Error(`unable to find user ${u}: no matching entries in passwd file`);
  } else {
    const root = users.find((e) => e[2] === '0');
    gid = root ? Number(root[3]) : 0;
  }
  if (g !== undefined && g !== '') {
    const entry = groups.find((e) => e[0] === g);
    if (entry) gid = Number(entry[2]);
    else if (/^\d+$/.test(g)) gid = Number(g);
    else throw new Error(`unable to find group ${g}: no matching entries in group file`);
  }
  // As the engine (20.10.18 on): the primary group first, whatever the form, then the groups that list the user (the
  // implicit form only, in the group file's order), then GroupAdd; repeats are kept as the engine keeps them.
  const extra = [gid];
  if ((g === undefined || g === '') && userName) for (const e of groups) if ((e[3] ?? '').split(',').includes(userName)) extra.push(Number(e[2]));
  for (const a of groupAdd) {
    const entry = groups.find((e) => e[0] === a);
    if (entry) extra.push(Number(entry[2]));
    else if (/^\d+$/.test(a)) extra.push(Number(a));
    else throw new Error(`Unable to find group ${a}: no matching entries in group file`);
  }
  return { uid, gid, additionalGids: extra };
}
