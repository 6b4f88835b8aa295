// The pieces of the container filesystem endpoints that need no daemon: the path-stat header, content-encoding
// negotiation, the naive changes walk, the tar writer and the scoped extractor (on scratch directories; the
// extractor tests run as root, as berth does).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { naiveChanges } from '../../src/fs/changes';
import { extractTar, ExtractOptions } from '../../src/fs/extract';
import { packTree } from '../../src/fs/pack';
import type { Scope, ScopeMount } from '../../src/fs/resolve';
import { negotiateEncoding } from '../../src/handlers/filesystem';
import { hostProbe } from '../../src/services/filesystem';
import { pathStatHeader, toGoFileMode, toPathStat } from '../../src/translate/response/archive';
import { BerthError } from '../../src/errors';

describe('X-Docker-Container-Path-Stat', () => {
  test('Go FileMode bits', () => {
    expect(toGoFileMode(0o040755)).toBe(2147484141);
    expect(toGoFileMode(0o120777)).toBe(134218239);
    expect(toGoFileMode(0o100644)).toBe(420);
    expect(toGoFileMode(0o104755)).toBe(2 ** 23 + 0o755);
    expect(toGoFileMode(0o041777)).toBe(2 ** 31 + 2 ** 20 + 0o777);
    expect(toGoFileMode(0o020666)).toBe(2 ** 26 + 2 ** 21 + 0o666);
    expect(toGoFileMode(0o010644)).toBe(2 ** 25 + 0o644);
  });

  test('byte for byte the header the reference sent for a 3-byte file', () => {
    const stat = toPathStat({ name: 'newfile', size: 3, mode: 0o100644, mtimeNs: 1795373459192252495n, linkTarget: '' });
    expect(stat.mtime).toBe('2026-11-22T18:50:59.192252495Z');
    const ref = toPathStat({ name: 'newfile', size: 3, mode: 0o100644, mtimeNs: BigInt(Date.parse('2026-11-22T18:30:59Z')) * 1_000_000n + 192252495n, linkTarget: '' });
    expect(pathStatHeader(ref)).toBe('eyJuYW1lIjoibmV3ZmlsZSIsInNpemUiOjMsIm1vZGUiOjQyMCwibXRpbWUiOiIyMDI2LTExLTIyVDE4OjMwOjU5LjE5MjI1MjQ5NVoiLCJsaW5rVGFyZ2V0IjoiIn0=');
    expect(toPathStat({ name: 'x', size: 0, mode: 0o100644, mtimeNs: 1_700_000_000_000_000_000n, linkTarget: '' }).mtime).toBe('2023-11-14T22:13:20Z');
    expect(toPathStat({ name: 'x', size: 0, mode: 0o100644, mtimeNs: 1_700_000_000_120_000_000n, linkTarget: '' }).mtime).toBe('2023-11-14T22:13:20.12Z');
  });

  test('Accept-Encoding negotiation (gzip preferred, deflate, q=0 refuses)', () => {
    expect(negotiateEncoding(undefined)).toBe('identity');
    expect(negotiateEncoding('gzip')).toBe('gzip');
    expect(negotiateEncoding('gzip, deflate')).toBe('gzip');
    expect(negotiateEncoding('deflate')).toBe('deflate');
    expect(negotiateEncoding('gzip;q=0.5, deflate')).toBe('deflate');
    expect(negotiateEncoding('br')).toBe('identity');
    expect(negotiateEncoding('*')).toBe('gzip');
    expect(negotiateEncoding('gzip;q=0')).toBe('');
  });
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-fs-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function tree(root: string, spec: Record<string, string | { link: string } | { dir: number }>): void {
  fs.mkdirSync(root, { recursive: true });
  for (const [p, v] of Object.entries(spec)) {
    const full = path.join(root, p);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (typeof v === 'string') fs.writeFileSync(full, v);
    else if ('link' in v) fs.symlinkSync(v.link, full);
    else fs.mkdirSync(full, { mode: v.dir });
  }
}

describe('naiveChanges', () => {
  test('added (with everything below), deleted (top only), modified files, dirs by mode only, parents inserted', () => {
    const oldR = path.join(dir, 'old');
    const newR = path.join(dir, 'new');
    const base = { 'bin/ls': 'ls', 'bin/sh': 'sh', 'etc/passwd': 'root', 'gone/deep/x': 'x', 'same/f': 'f', 'modes/': { dir: 0o755 }, 'kind': 'file' };
    tree(oldR, base);
    tree(newR, base);
    const fixTimes = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) fixTimes(path.join(d, e.name));
        fs.utimesSync(path.join(d, e.name), 1_700_000_000, 1_700_000_000);
      }
    };
    fixTimes(oldR);
    fixTimes(newR);
    fs.rmSync(path.join(newR, 'bin/ls'));
    fs.rmSync(path.join(newR, 'gone'), { recursive: true });
    fs.appendFileSync(path.join(newR, 'etc/passwd'), 'more');
    fs.mkdirSync(path.join(newR, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(newR, 'a/b/c'), 'c');
    fs.chmodSync(path.join(newR, 'modes'), 0o700);
    fs.utimesSync(path.join(newR, 'same'), new Date(0), new Date(0)); // a directory's mtime alone is no change
    fs.rmSync(path.join(newR, 'kind'));
    fs.mkdirSync(path.join(newR, 'kind'));
    fs.writeFileSync(path.join(newR, 'kind/inside'), '');
    expect(naiveChanges(newR, oldR)).toEqual([
      { Path: '/a', Kind: 1 },
      { Path: '/a/b', Kind: 1 },
      { Path: '/a/b/c', Kind: 1 },
      { Path: '/bin', Kind: 0 },
      { Path: '/bin/ls', Kind: 2 },
      { Path: '/etc', Kind: 0 },
      { Path: '/etc/passwd', Kind: 0 },
      { Path: '/kind', Kind: 0 },
      { Path: '/kind/inside', Kind: 1 },
      { Path: '/modes', Kind: 0 },
      { Path: '/gone', Kind: 2 },
    ]);
    expect(naiveChanges(oldR, oldR)).toEqual([]);
  });
});

async function listTar(stream: Readable): Promise<{ name: string; type: string; linkname?: string; data: string }[]> {
  const ex = tar.extract();
  const out: { name: string; type: string; linkname?: string; data: string }[] = [];
  const done = (async () => {
    for await (const e of ex as unknown as AsyncIterable<AsyncIterable<Buffer> & { header: tar.Header }>) {
      const chunks: Buffer[] = [];
      for await (const c of e) chunks.push(c);
      out.push({ name: e.header.name, type: e.header.type, linkname: e.header.linkname || undefined, data: Buffer.concat(chunks).toString() });
    }
  })();
  for await (const c of stream) ex.write(c);
  (ex as unknown as { end(): void }).end();
  await done;
  return out;
}

describe('packTree', () => {
  test('names per rebase, lexical order, symlinks as links, hard links once, mounts walked in their source', async () => {
    const root = path.join(dir, 'root');
    tree(root, { 'etc/b': 'b', 'etc/a': 'a', 'etc/l': { link: '/etc/a' }, 'data/': { dir: 0o755 } });
    fs.linkSync(path.join(root, 'etc/a'), path.join(root, 'etc/z-hard'));
    const vol = path.join(dir, 'vol');
    tree(vol, { inside: 'v' });
    const s: Scope = { root, mounts: [{ destination: '/data', source: vol, rw: true }, { destination: '/etc/mnt', source: vol, rw: true }], probe: hostProbe };
    expect((await listTar(packTree(s, { containerPath: '/etc', rebase: 'etc' }))).map((e) => [e.name, e.type, e.linkname ?? '', e.data])).toEqual([
      ['etc/', 'directory', '', ''],
      ['etc/a', 'file', '', 'a'],
      ['etc/b', 'file', '', 'b'],
      ['etc/l', 'symlink', '/etc/a', ''],
      ['etc/mnt/', 'directory', '', ''],
      ['etc/mnt/inside', 'file', '', 'v'],
      ['etc/z-hard', 'link', 'etc/a', ''],
    ]);
    expect((await listTar(packTree(s, { containerPath: '/etc', rebase: '.' }))).map((e) => e.name).slice(0, 2)).toEqual(['./', './a']);
    expect((await listTar(packTree(s, { containerPath: '/', rebase: '' }))).map((e) => e.name).slice(0, 3)).toEqual(['/', '/data/', '/data/inside']);
    expect((await listTar(packTree({ ...s, mounts: [] }, { containerPath: '/', rebase: null }))).map((e) => e.name)).toEqual(['data/', 'etc/', 'etc/a', 'etc/b', 'etc/l', 'etc/z-hard']);
  });
});

function makeTar(entries: { name: string; type?: tar.Header['type']; data?: string; linkname?: string; mode?: number }[]): Readable {
  const pack = tar.pack();
  for (const e of entries) {
    const header = { name: e.name, type: e.type ?? 'file', linkname: e.linkname, mode: e.mode ?? (e.type === 'directory' ? 0o755 : 0o644), mtime: new Date('2024-01-02T03:04:05Z') };
    if ((e.type ?? 'file') === 'file') pack.entry(header, e.data ?? '');
    else pack.entry(header);
  }
  pack.finalize();
  return Readable.from(pack as unknown as AsyncIterable<Buffer>);
}

// extractTar gives entries their owners from the tar (lchown), as berth does running as root: these tests need
// root, and say so rather than skip (scripts/test.sh runs as root only).
const isRoot = process.getuid?.() === 0;
const asRoot = (name: string, fn: () => Promise<void>) =>
  test(name, async () => {
    if (!isRoot) throw new Error('this test needs root: extractTar sets entries\' owners (lchown)');
    await fn();
  });

describe('extractTar (scoped, no chroot)', () => {
  let root: string;
  let outside: string;
  let s: Scope;
  const opts: ExtractOptions = { noOverwriteDirNonDir: false, readonlyRootfs: false };
  beforeEach(() => {
    root = path.join(dir, 'root');
    outside = path.join(dir, 'outside');
    tree(root, { 'etc/passwd': 'root', 'tmp/': { dir: 0o1777 } });
    tree(outside, { 'keep': 'keep' });
    s = { root, mounts: [], probe: hostProbe };
  });

  asRoot('files, directories, modes, mtimes, missing parents made', async () => {
    await extractTar(s, '/tmp', makeTar([{ name: 'd/', type: 'directory', mode: 0o750 }, { name: 'd/f', data: 'hello', mode: 0o600 }, { name: 'deep/er/g', data: 'g' }]), opts);
    expect(fs.readFileSync(path.join(root, 'tmp/d/f'), 'utf8')).toBe('hello');
    expect(fs.statSync(path.join(root, 'tmp/d/f')).mode & 0o7777).toBe(0o600);
    expect(fs.statSync(path.join(root, 'tmp/d')).mode & 0o7777).toBe(0o750);
    expect(fs.statSync(path.join(root, 'tmp/d')).mtime.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(fs.readFileSync(path.join(root, 'tmp/deep/er/g'), 'utf8')).toBe('g');
  });

  asRoot('the escape tricks stay inside the root', async () => {
    // ../ entries are refused as the engine refuses them.
    await expect(extractTar(s, '/tmp', makeTar([{ name: '../../../../x', data: 'x' }]), opts)).rejects.toThrow('"../../../../x" is outside of "/tmp"');
    // A symlink in the tar, then a file through it: absolute links restart at the container root.
    fs.symlinkSync(outside, path.join(root, 'hostpath'));
    await extractTar(s, '/tmp', makeTar([{ name: 'al', type: 'symlink', linkname: '/' }, { name: 'al/etc/owned', data: 'owned' }, { name: 'ho', type: 'symlink', linkname: outside }, { name: 'ho/x', data: 'x' }]), opts);
    expect(fs.readFileSync(path.join(root, 'etc/owned'), 'utf8')).toBe('owned');
    expect(fs.readFileSync(path.join(root, outside, 'x'), 'utf8')).toBe('x');
    expect(fs.readdirSync(outside)).toEqual(['keep']);
    // A link already in the container, as the parent of an entry: followed in scope.
    await extractTar(s, '/', makeTar([{ name: 'hostpath/y', data: 'y' }]), opts);
    expect(fs.readdirSync(outside)).toEqual(['keep']);
    expect(fs.readFileSync(path.join(root, outside, 'y'), 'utf8')).toBe('y');
    // An existing symlink at an entry's own name is replaced, never written through.
    fs.symlinkSync(path.join(outside, 'keep'), path.join(root, 'tmp/trap'));
    await extractTar(s, '/tmp', makeTar([{ name: 'trap', data: 'replaced' }]), opts);
    expect(fs.readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('keep');
    expect(fs.lstatSync(path.join(root, 'tmp/trap')).isFile()).toBe(true);
    // Relative link targets leaving the destination, hard links leaving it: refused.
    await expect(extractTar(s, '/tmp', makeTar([{ name: 'rl', type: 'symlink', linkname: '../../etc' }]), opts)).rejects.toThrow('invalid symlink "/tmp/rl" -> "../../etc"');
    await expect(extractTar(s, '/tmp', makeTar([{ name: 'hl', type: 'link', linkname: '../../etc/passwd' }]), opts)).rejects.toThrow('invalid hardlink "/etc/passwd" -> "../../etc/passwd"');
    // Hard links inside the destination work.
    await extractTar(s, '/tmp', makeTar([{ name: 'h1', data: 'same' }, { name: 'h2', type: 'link', linkname: 'h1' }]), opts);
    expect(fs.statSync(path.join(root, 'tmp/h2')).ino).toBe(fs.statSync(path.join(root, 'tmp/h1')).ino);
  });

  asRoot('noOverwriteDirNonDir, read-only mounts and root, mount points', async () => {
    tree(root, { 'tmp/dir/x': 'x', 'tmp/file': 'f' });
    const no = { ...opts, noOverwriteDirNonDir: true };
    const err = await extractTar(s, '/tmp', makeTar([{ name: 'dir', data: 'f' }]), no).catch((e) => e);
    expect(err).toBeInstanceOf(BerthError);
    expect((err as BerthError).kind).toBe('InvalidParameter');
    await expect(extractTar(s, '/tmp', makeTar([{ name: 'file', type: 'directory' }]), no)).rejects.toThrow('cannot overwrite non-directory "/tmp/file" with directory "/tmp"');
    const vol = path.join(dir, 'vol');
    fs.mkdirSync(vol);
    const mounts: ScopeMount[] = [{ destination: '/ro', source: vol, rw: false }, { destination: '/rw', source: vol, rw: true }];
    const ms = { ...s, mounts };
    await expect(extractTar(ms, '/', makeTar([{ name: 'ro/x', data: 'x' }]), opts)).rejects.toThrow('mounted volume is marked read-only');
    await expect(extractTar(ms, '/rw', makeTar([{ name: 'x', data: 'x' }]), { ...opts, readonlyRootfs: true })).resolves.toBeUndefined();
    // A link in the writable volume leading back into a read-only root: the entry through it is refused.
    await expect(extractTar(ms, '/rw', makeTar([{ name: 'l', type: 'symlink', linkname: '/etc' }, { name: 'l/y', data: 'y' }]), { ...opts, readonlyRootfs: true })).rejects.toThrow('container rootfs is marked read-only');
    expect(fs.existsSync(path.join(root, 'etc/y'))).toBe(false);
    await expect(extractTar(ms, '/', makeTar([{ name: 'rw', data: 'not a dir' }]), opts)).rejects.toThrow('device or resource busy');
    expect(fs.readdirSync(vol).sort()).toEqual(['l', 'x']);
  });
});
