// Atomic file writes: write a temp file in the same directory, fsync, rename over the target.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** (a syscall at each `process.pid`: read once) */
const PID = process.pid;

function fsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/**
 * The temp file is opened, written and closed on the calling thread (a few KB into the page cache: microseconds),
 * its fsync (the wait for the disk) and the rename are on the thread pool. Each thread-pool round trip costs the main
 * thread a request, a wake-up of a pool thread and a completion, and the pool thread its own; five of them a save made
 * the record writes the largest part of berthd's CPU per `docker run` (four saves a run; issue 20's profile). Nothing
 * is traded: the data is on disk (fsync) before the rename makes it the record.
 */
export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = `${file}.tmp-${PID}-${Math.random().toString(36).slice(2)}`;
  try {
    let fd: number;
    try {
      fd = fs.openSync(tmp, 'w', mode);
    } catch (err) {
      // (the folder is made when it is missing: one operation less for every later write)
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fd = fs.openSync(tmp, 'w', mode);
    }
    try {
      fs.writeFileSync(fd, data);
      await fsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    // nothing half-written stays (a full disk leaves the old file as it was), and the error names the file
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* (as it may) */
    }
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e === 'object' && e.code && !e.path) e.path = file;
    throw err;
  }
}

export function readJSONFileSync<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
