// Atomic file writes: write a temp file in the same directory, fsync, rename over the target.
import * as fs from 'node:fs';
import * as path from 'node:path';

export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    // (the folder is made when it is missing: one operation less on the thread pool for every later write)
    const fh = await fs.promises.open(tmp, 'w', mode).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      return fs.promises.open(tmp, 'w', mode);
    });
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    // nothing half-written stays (a full disk leaves the old file as it was), and the error names the file
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
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
