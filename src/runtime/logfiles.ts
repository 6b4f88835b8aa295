// The files of a rotated json-file log, named as Docker Engine 20.10 names them: `<log>` (current), `<log>.1` (the
// newest rotated) ... `<log>.N`; with compress, `<log>.1.gz` ... (each rotated file is gzipped once it is `.1`, with
// the engine's gzip header: its Extra field holds {"lastTime": <time of the file's last entry>}).
//
// A reader gets a LogSource: the files opened at one instant (oldest first, the current one last), so that a rotation
// after that instant (renames, deletes, compression) changes nothing it reads. The capture opens them synchronously
// on the main thread, where it rotates, so no rotation can fall between two of the opens.
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import type { JsonFileOptions } from '../types/io';

export const NO_ROTATION: JsonFileOptions = { maxSize: -1, maxFiles: 1, compress: false };

/** The number of rotated files a reader reads (with max-file 1 the engine keeps `.1` but never reads it). */
export const readableRotated = (o: JsonFileOptions): number => (o.maxSize > 0 ? o.maxFiles - 1 : 0);

export interface LogFileRef {
  fd: number;
  gz: boolean;
  /**
   * Logical offset of the file's first byte: bytes the capture wrote since it opened the log, counted across
   * rotations (the current file's offset when the capture opened it is logical 0). Undefined for files rotated
   * before that: they lie wholly before logical 0.
   */
  base?: number;
  /** The current file (it may still grow). */
  current?: boolean;
  /** For the current file: its size when the source was opened (where the capture's appends continue). */
  size?: number;
}

export interface LogSource {
  files: LogFileRef[];
  /** The files belong to another thread, which closes them (a worker closing the main thread's fds gets a warning
   *  from Node for each). */
  borrowed?: boolean;
}

export const rotatedName = (file: string, i: number, gz: boolean): string => `${file}.${i}${gz ? '.gz' : ''}`;

/** Opens rotated file `i`: plain if it is there (not compressed yet, or being compressed), else gzipped. */
export function openRotated(file: string, i: number): { fd: number; gz: boolean } | undefined {
  for (const gz of [false, true]) {
    try {
      return { fd: fs.openSync(rotatedName(file, i, gz), 'r'), gz };
    } catch {
      /* next */
    }
  }
  return undefined;
}

/**
 * The log's files: `rotated` rotated files, oldest first, then the current. `capture` is the logical offsets and the
 * current file's size of the capture writing the log; without it (no capture), the current file starts at logical 0
 * and its size is what is on disk.
 */
export function openLogFiles(file: string, rotated: number, capture?: { rotatedBase: (i: number) => number | undefined; base: number; size: number }): LogSource {
  const files: LogFileRef[] = [];
  for (let i = rotated; i >= 1; i--) {
    const f = openRotated(file, i);
    if (f) files.push(capture ? { ...f, base: capture.rotatedBase(i) } : f);
  }
  try {
    const fd = fs.openSync(file, 'r');
    files.push({ fd, gz: false, current: true, base: capture?.base ?? 0, size: capture?.size ?? fs.fstatSync(fd).size });
  } catch {
    /* no current file */
  }
  return { files };
}

export function closeLogSource(src: LogSource): void {
  if (src.borrowed) return;
  for (const f of src.files) {
    try {
      fs.closeSync(f.fd);
    } catch {
      /* closed */
    }
  }
  src.files = [];
}

/** Bytes the source holds now (gzipped files counted compressed). */
export function sourceSize(src: LogSource): number {
  let n = 0;
  for (const f of src.files) {
    try {
      n += f.current && f.size !== undefined ? f.size : fs.fstatSync(f.fd).size;
    } catch {
      /* closed */
    }
  }
  return n;
}

/**
 * Gzips the file open as `src` (closed after) into `dest` as the engine does (header Extra {"lastTime": ...}, mtime
 * 0, OS unknown). Asynchronous: the deflate runs on the thread pool.
 */
export async function compressFile(src: number, dest: string, lastTime: string): Promise<void> {
  const extra = Buffer.from(JSON.stringify({ lastTime }));
  const header = Buffer.alloc(12);
  header.set([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff]);
  header.writeUInt16LE(extra.length, 10);
  const input = fs.createReadStream('', { fd: src, autoClose: true });
  let out: fs.promises.FileHandle | undefined;
  try {
    out = await fs.promises.open(dest, 'w', 0o640);
    await out.write(Buffer.concat([header, extra]));
    let crc = 0;
    let length = 0;
    const deflate = zlib.createDeflateRaw();
    input.on('data', (b) => {
      const chunk = b as Buffer;
      crc = zlib.crc32(chunk, crc);
      length += chunk.length;
    });
    input.on('error', (err) => deflate.destroy(err));
    input.pipe(deflate);
    for await (const chunk of deflate) await out.write(chunk as Buffer);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(length >>> 0, 4);
    await out.write(trailer);
  } finally {
    input.destroy();
    await out?.close();
  }
}
