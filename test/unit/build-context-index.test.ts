// The build context kept as its tar: the header scanner (offsets, long names, pax records, truncation, garbage)
// and the index applying entries as an extraction would (replacement, implied parents, symlinked parents, links).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import { TarContextFs } from '../../src/builder/source-fs';
import { TarError, TarHeader, TarScanner } from '../../src/builder/tar-scan';
import { resolveInScope } from '../../src/fs/resolve';

type Spec = { name: string; type?: 'file' | 'directory' | 'symlink' | 'link'; body?: Buffer; linkname?: string; mode?: number; pax?: Record<string, string> };

async function makeTar(entries: Spec[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) {
    const header = { name: e.name, type: e.type ?? 'file', linkname: e.linkname, mode: e.mode ?? 0o644, pax: e.pax };
    if (e.type && e.type !== 'file') pack.entry(header);
    else pack.entry(header, e.body ?? Buffer.alloc(0));
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Scans in chunks of `step` bytes. */
function scan(buf: Buffer, step: number): TarHeader[] {
  const s = new TarScanner();
  const out: TarHeader[] = [];
  for (let i = 0; i < buf.length; i += step) out.push(...s.push(buf.subarray(i, i + step)));
  s.end();
  return out;
}

test('headers and data offsets, whatever the chunking; long names (pax) and ustar prefixes', async () => {
  const long = `${'d'.repeat(120)}/${'f'.repeat(130)}`;
  const bodies = [crypto.randomBytes(1000), crypto.randomBytes(512), crypto.randomBytes(3)];
  const buf = await makeTar([
    { name: 'Dockerfile', body: Buffer.from('FROM x\n') },
    { name: 'dir', type: 'directory', mode: 0o750 },
    { name: 'dir/a', body: bodies[0] },
    { name: long, body: bodies[1] },
    { name: 'dir/l', type: 'symlink', linkname: '../Dockerfile' },
    { name: 'dir/b', body: bodies[2], mode: 0o755 },
  ]);
  for (const step of [1, 7, 512, 513, 65536]) {
    const hs = scan(buf, step);
    expect(hs.map((h) => [h.name, h.type])).toEqual([['Dockerfile', 'file'], ['dir', 'directory'], ['dir/a', 'file'], [long, 'file'], ['dir/l', 'symlink'], ['dir/b', 'file']]);
    expect(buf.subarray(hs[2].offset, hs[2].offset + hs[2].size)).toEqual(bodies[0]);
    expect(buf.subarray(hs[3].offset, hs[3].offset + hs[3].size)).toEqual(bodies[1]);
    expect(buf.subarray(hs[5].offset, hs[5].offset + hs[5].size)).toEqual(bodies[2]);
    expect(hs[5].mode).toBe(0o755);
    expect(hs[1].mode).toBe(0o750);
    expect(hs[4].linkname).toBe('../Dockerfile');
  }
});

test('a truncated archive is an unexpected EOF, garbage an invalid header, an empty body no entries', async () => {
  const buf = await makeTar([{ name: 'a', body: crypto.randomBytes(2000) }]);
  expect(() => scan(buf.subarray(0, 1200), 100)).toThrow(new TarError('unexpected EOF'));
  expect(() => scan(Buffer.from('not a tar at all'), 100)).toThrow('unexpected EOF');
  expect(() => scan(crypto.randomBytes(1024), 100)).toThrow('archive/tar: invalid tar header');
  expect(scan(Buffer.alloc(0), 1)).toEqual([]);
});

test('the index applies entries as an unpack would', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctx-index-'));
  try {
    const buf = await makeTar([
      { name: 'x/y/file', body: Buffer.from('one') },
      { name: 'x/y/file', body: Buffer.from('two!') },
      { name: 'real', type: 'directory' },
      { name: 'link', type: 'symlink', linkname: '/real' },
      { name: 'link/inside', body: Buffer.from('through the link') },
      { name: 'hard', type: 'link', linkname: 'x/y/file' },
      { name: 'x', body: Buffer.from('x is now a file') },
    ]);
    const file = path.join(dir, 'context.tar');
    fs.writeFileSync(file, buf);
    const idx = new TarContextFs(file);
    for (const h of scan(buf, 4096)) idx.add(h);
    expect(idx.readFile('/real/inside')?.toString()).toBe('through the link');
    expect(idx.readFile('/hard')?.toString()).toBe('two!');
    expect(idx.readFile('/x')?.toString()).toBe('x is now a file');
    expect(idx.lstat('/x/y')).toBeUndefined();
    expect(idx.lstat('/link')?.isSymbolicLink()).toBe(true);
    expect(resolveInScope(idx.scope, '/link/inside').containerPath).toBe('/real/inside');
    expect(idx.readdir('/').sort()).toEqual(['hard', 'link', 'real', 'x']);
    expect(idx.hash('/hard', idx.lstat('/hard')!)).toEqual(crypto.createHash('sha256').update('two!').digest());
    const escape = await makeTar([{ name: '../evil', body: Buffer.from('x') }]);
    expect(() => scan(escape, 512).forEach((h) => idx.add(h))).toThrow('"../evil" is outside of "/"');
    idx.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the upload sink: data reported in order whatever the chunking; files digested on arrival as from the tar', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ctx-sink-'));
  try {
    const bodies: Record<string, Buffer> = { empty: Buffer.alloc(0), small: crypto.randomBytes(100), block: crypto.randomBytes(512), mid: crypto.randomBytes(70_000), big: crypto.randomBytes(1_500_000), again: crypto.randomBytes(3000) };
    const buf = await makeTar([
      ...Object.entries(bodies).map(([name, body]) => ({ name: `d/${name}`, body })),
      { name: 'hard', type: 'link' as const, linkname: 'd/mid' },
      { name: 'd/small', body: Buffer.from('replaced') },
    ]);
    fs.writeFileSync(path.join(dir, 'context.tar'), buf);
    for (const step of [97, 511, 4096, 65536, buf.length]) {
      // The scanner's own events: each file's pieces joined are its content.
      const seen: [string, Buffer][] = [];
      const s = new TarScanner();
      let pieces: Buffer[] = [];
      for (let i = 0; i < buf.length; i += step) {
        s.push(buf.subarray(i, i + step), {
          header: (h) => {
            if (h.type === 'file') seen.push([h.name, Buffer.alloc(0)]);
          },
          data: (b, last) => {
            pieces.push(Buffer.from(b));
            if (last) {
              seen[seen.length - 1][1] = Buffer.concat(pieces);
              pieces = [];
            }
          },
        });
      }
      s.end();
      expect(seen.map(([n]) => n)).toEqual([...Object.keys(bodies).map((n) => `d/${n}`), 'd/small']);
      // (Buffer.equals: jest's toEqual walks a 1.5 MB buffer byte by byte for seconds.)
      for (const [n, b] of seen.slice(0, -1)) expect(b.equals(bodies[n.slice(2)])).toBe(true);
      expect(seen[seen.length - 1][1].toString()).toBe('replaced');
      // The index fed by its sink: the digests given on arrival are the content's (and a hard link shares them).
      const idx = new TarContextFs(path.join(dir, 'context.tar'));
      const sink = idx.sink();
      const s2 = new TarScanner();
      for (let i = 0; i < buf.length; i += step) s2.push(buf.subarray(i, i + step), sink);
      s2.end();
      const sha = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest();
      for (const [name, body] of Object.entries({ ...bodies, small: Buffer.from('replaced') })) {
        const st = idx.lstat(`/d/${name}`)!;
        expect((await idx.hashAsync(`/d/${name}`, st)).equals(sha(body))).toBe(true);
      }
      expect((await idx.hashAsync('/hard', idx.lstat('/hard')!)).equals(sha(bodies.mid))).toBe(true);
      // The scan is synchronous here, so nothing is digested before the 1.5 MB file: it waits, as on a busy machine.
      expect(idx.prehash).toMatchObject({ files: 6, skipped: 1 });
      idx.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
