// A tar stream as it arrives, plain or compressed (gzip, bzip2, xz: sniffed by its first bytes, as the engine's
// DecompressStream sniffs them): build contexts, ADD of local archives and image loads.
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import * as zlib from 'node:zlib';

const MAGIC = {
  gzip: Buffer.from([0x1f, 0x8b]),
  bzip2: Buffer.from('BZh'),
  xz: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]),
};

/** Reads the first bytes of a stream and gives them back with the rest. */
async function peek(input: Readable, n: number): Promise<{ head: Buffer; stream: Readable }> {
  const chunks: Buffer[] = [];
  let len = 0;
  for (;;) {
    if (len >= n) break;
    const chunk: Buffer | null = input.read();
    if (chunk) {
      chunks.push(chunk);
      len += chunk.length;
      continue;
    }
    if (input.readableEnded) break;
    const ended = await new Promise<boolean>((resolve, reject) => {
      const done = () => { cleanup(); resolve(false); };
      const end = () => { cleanup(); resolve(true); };
      const fail = (e: Error) => { cleanup(); reject(e); };
      const cleanup = () => { input.off('readable', done); input.off('end', end); input.off('error', fail); };
      input.once('readable', done);
      input.once('end', end);
      input.once('error', fail);
    });
    if (ended) break;
  }
  const head = Buffer.concat(chunks);
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  out.write(head);
  input.pipe(out);
  input.on('error', (e) => out.destroy(e));
  return { head, stream: out };
}

/** Opens (decompressing when needed) a tar stream. */
export async function openTar(input: Readable): Promise<Readable> {
  const { head, stream } = await peek(input, 6);
  const tool = head.subarray(0, 2).equals(MAGIC.gzip) ? 'gzip' : head.subarray(0, 3).equals(MAGIC.bzip2) ? 'bzip2' : head.subarray(0, 6).equals(MAGIC.xz) ? 'xz' : undefined;
  if (!tool) return stream;
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const failed = (e: Error) => out.destroy(e);
  if (tool === 'gzip') {
    const gunzip = zlib.createGunzip();
    gunzip.on('error', failed);
    stream.pipe(gunzip).pipe(out);
  } else {
    // Node has neither bzip2 nor xz: Debian's tools decompress in a child process.
    const proc = spawn(tool, ['-dc'], { stdio: ['pipe', 'pipe', 'ignore'] });
    proc.on('error', failed);
    proc.stdin.on('error', () => undefined);
    proc.on('exit', (code) => { if (code) failed(new Error(`${tool}: exit status ${code}`)); });
    stream.pipe(proc.stdin);
    proc.stdout.pipe(out);
  }
  stream.on('error', failed);
  return out;
}
