// The container path resolver (src/fs/resolve.ts) against an in-memory filesystem: the engine's
// FollowSymlinkInScope rules, mounts in the view, and the escape tricks, plus a randomised check that no
// resolution ever leaves the container's root or a mount's source.
import { baseName, cleanPath, FsProbe, preserveTrailing, resolveForArchive, resolveInScope, Scope, ScopeMount, TooManyLinksError } from '../../src/fs/resolve';

type Tree = Record<string, { dir: true } | { link: string } | { file: true }>;

/** A host filesystem from absolute host paths; parents are implied directories. */
function probeOf(tree: Tree): FsProbe & { calls: string[] } {
  const calls: string[] = [];
  const kind = (p: string) => {
    const n = p.replace(/\/+$/, '') || '/';
    if (n === '/') return 'dir' as const;
    const e = tree[n];
    if (e) return 'link' in e ? ('symlink' as const) : 'dir' in e ? ('dir' as const) : ('other' as const);
    if (Object.keys(tree).some((k) => k.startsWith(`${n}/`))) return 'dir' as const;
    return undefined;
  };
  return {
    calls,
    lstat(p) {
      calls.push(p);
      // A path under a non-directory does not exist (ENOTDIR).
      const parts = p.split('/').filter(Boolean);
      for (let i = 1; i < parts.length; i++) {
        const k = kind(`/${parts.slice(0, i).join('/')}`);
        if (k === 'other' || k === 'symlink') return undefined;
      }
      return kind(p);
    },
    readlink(p) {
      const e = tree[p];
      if (!e || !('link' in e)) throw new Error(`EINVAL ${p}`);
      return e.link;
    },
  };
}

const ROOT = '/var/lib/berth/rootfs';

function scope(tree: Tree, mounts: ScopeMount[] = []): Scope {
  const full: Tree = {};
  for (const [k, v] of Object.entries(tree)) full[k.startsWith('@') ? k.slice(1) : `${ROOT}${k}`] = v;
  return { root: ROOT, mounts, probe: probeOf(full) };
}

describe('path helpers (Go filepath semantics)', () => {
  test('cleanPath', () => {
    expect(cleanPath('')).toBe('.');
    expect(cleanPath('/')).toBe('/');
    expect(cleanPath('/../x')).toBe('/x');
    expect(cleanPath('a/../..')).toBe('..');
    expect(cleanPath('a//b/./c/')).toBe('a/b/c');
    expect(cleanPath('/a/b/../../../c')).toBe('/c');
    expect(cleanPath('../a')).toBe('../a');
    expect(cleanPath('./')).toBe('.');
  });

  test('preserveTrailing keeps "/." and "/" assertions; baseName', () => {
    expect(preserveTrailing('/etc', '/etc/.')).toBe('/etc/.');
    expect(preserveTrailing('/etc', 'etc/')).toBe('/etc/');
    expect(preserveTrailing('/', '/')).toBe('/');
    expect(preserveTrailing('/', '.')).toBe('/.');
    expect(preserveTrailing('/etc', '/etc')).toBe('/etc');
    expect(baseName('/etc/.')).toBe('.');
    expect(baseName('/etc/')).toBe('etc');
    expect(baseName('/')).toBe('/');
    expect(baseName('')).toBe('.');
  });
});

describe('resolveInScope', () => {
  test('plain paths, relative paths, missing components kept as they are', () => {
    const s = scope({ '/etc/passwd': { file: true } });
    expect(resolveInScope(s, '/etc/passwd')).toEqual({ containerPath: '/etc/passwd', hostPath: `${ROOT}/etc/passwd` });
    expect(resolveInScope(s, 'etc/passwd').containerPath).toBe('/etc/passwd');
    expect(resolveInScope(s, '/nope/x').hostPath).toBe(`${ROOT}/nope/x`);
    expect(resolveInScope(s, '/').hostPath).toBe(ROOT);
  });

  test('.. is lexical first and never climbs above the root', () => {
    const s = scope({ '/a/l': { link: '/b/c' } });
    // /a/l/.. is cleaned to /a before the link is looked at, as the engine does.
    expect(resolveInScope(s, '/a/l/..').containerPath).toBe('/a');
    expect(resolveInScope(s, '/../../../etc/shadow').hostPath).toBe(`${ROOT}/etc/shadow`);
  });

  test('an absolute symlink restarts at the container root (/etc/x -> /)', () => {
    const s = scope({ '/etc/x': { link: '/' }, '/etc/passwd': { file: true } });
    expect(resolveInScope(s, '/etc/x')).toEqual({ containerPath: '/', hostPath: ROOT });
    expect(resolveInScope(s, '/etc/x/etc/passwd').hostPath).toBe(`${ROOT}/etc/passwd`);
    expect(resolveInScope(s, '/etc/x/../../..').hostPath).toBe(ROOT);
  });

  test('a relative symlink climbing far above stops at the root', () => {
    const s = scope({ '/tmp/up': { link: '../../../../../../../..' }, '/tmp/up2': { link: '../../../../../../../../etc/passwd' } });
    expect(resolveInScope(s, '/tmp/up/etc/shadow').hostPath).toBe(`${ROOT}/etc/shadow`);
    expect(resolveInScope(s, '/tmp/up2').hostPath).toBe(`${ROOT}/etc/passwd`);
  });

  test('a symlink to a host path names that path inside the container', () => {
    const s = scope({ '/abs': { link: '/home/user/secret' }, '@/home/user/secret': { file: true } });
    expect(resolveInScope(s, '/abs').hostPath).toBe(`${ROOT}/home/user/secret`);
  });

  test('symlinked parent directories, chains, and a final symlink left alone when asked', () => {
    const s = scope({ '/a': { link: 'b' }, '/b': { link: '/c/d' }, '/c/d/e': { file: true }, '/f': { link: 'a/e' } });
    expect(resolveInScope(s, '/a/e').containerPath).toBe('/c/d/e');
    expect(resolveInScope(s, '/f').containerPath).toBe('/c/d/e');
    expect(resolveInScope(s, '/f', { followFinal: false }).containerPath).toBe('/f');
    expect(resolveInScope(s, '/a/e', { followFinal: false }).containerPath).toBe('/c/d/e');
  });

  test('a symlink loop is an error, not a hang', () => {
    const s = scope({ '/a': { link: 'b' }, '/b': { link: 'a' } });
    expect(() => resolveInScope(s, '/a/x')).toThrow(TooManyLinksError);
  });

  test('mounts: a volume is looked up in its source; symlinks inside it are still container paths', () => {
    const mounts = [
      { destination: '/data', source: '/vol/_data', rw: true },
      { destination: '/data/inner', source: '/other', rw: false },
      { destination: '/etc/hosts', source: '/ctr/hosts', rw: true },
    ];
    const s = scope({ '@/vol/_data/l': { link: '/etc' }, '@/vol/_data/up': { link: '../..' }, '/data': { link: '/elsewhere' }, '/tolink': { link: 'data/x' } }, mounts);
    expect(resolveInScope(s, '/data/f')).toEqual({ containerPath: '/data/f', hostPath: '/vol/_data/f', mount: mounts[0] });
    expect(resolveInScope(s, '/data/inner/g').hostPath).toBe('/other/g');
    expect(resolveInScope(s, '/data/l/passwd').hostPath).toBe(`${ROOT}/etc/passwd`);
    expect(resolveInScope(s, '/data/up/etc').hostPath).toBe(`${ROOT}/etc`);
    expect(resolveInScope(s, '/tolink').hostPath).toBe('/vol/_data/x');
    expect(resolveInScope(s, '/etc/hosts').hostPath).toBe('/ctr/hosts');
    // The rootfs's /data being a symlink does not matter: the mount covers it.
    expect(resolveInScope(s, '/data').hostPath).toBe('/vol/_data');
  });

  test('randomised: every resolution stays inside the root or a mount source', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'c', '..', '.', 'etc', ''];
    const pick = () => names[rnd(names.length)];
    const randPath = (len: number) => (rnd(2) ? '/' : '') + Array.from({ length: len }, pick).join('/');
    for (let round = 0; round < 200; round++) {
      const tree: Tree = {};
      for (let i = 0; i < 8; i++) {
        const p = cleanPath(`/${Array.from({ length: 1 + rnd(3) }, () => ['a', 'b', 'c', 'etc'][rnd(4)]).join('/')}`);
        tree[p] = rnd(3) ? { link: rnd(2) ? randPath(1 + rnd(6)) : `/../../..${randPath(2)}` } : { dir: true };
      }
      const mounts = rnd(2) ? [{ destination: '/b', source: '/mnt/src', rw: true }] : [];
      const s = scope(tree, mounts);
      for (let q = 0; q < 20; q++) {
        let r;
        try {
          r = resolveInScope(s, randPath(1 + rnd(6)), { followFinal: !!rnd(2) });
        } catch (e) {
          expect(e).toBeInstanceOf(TooManyLinksError);
          continue;
        }
        expect(r.containerPath).toBe(cleanPath(r.containerPath));
        expect(r.containerPath.startsWith('/')).toBe(true);
        const inside = r.hostPath === ROOT || r.hostPath.startsWith(`${ROOT}/`) || r.hostPath === '/mnt/src' || r.hostPath.startsWith('/mnt/src/');
        expect(inside).toBe(true);
        expect(r.hostPath.split('/')).not.toContain('..');
      }
    }
  });
});

describe('resolveForArchive (the engine ResolvePath: the last element is not followed)', () => {
  const s = scope({ '/etclink': { link: '/etc' }, '/etc/passwd': { file: true }, '/d/l': { link: '../etc' } });
  test('a final symlink is reported, not followed; a trailing / or /. follows it', () => {
    expect(resolveForArchive(s, '/etclink').resolved.containerPath).toBe('/etclink');
    expect(resolveForArchive(s, '/etclink/')).toEqual(expect.objectContaining({ absPath: '/etclink/', trailing: '/' }));
    expect(resolveForArchive(s, '/etclink/').resolved.containerPath).toBe('/etc');
    expect(resolveForArchive(s, '/etclink/.').resolved.containerPath).toBe('/etc');
    expect(resolveForArchive(s, '/d/l/passwd').resolved.containerPath).toBe('/etc/passwd');
    expect(resolveForArchive(s, '/').resolved.containerPath).toBe('/');
    expect(resolveForArchive(s, '.')).toEqual(expect.objectContaining({ absPath: '/.', trailing: '/.' }));
  });
});
