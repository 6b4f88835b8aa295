// The size of what a container wrote, as the engine counts it (its directory.Size): the apparent sizes of the files,
// links and other non-directory entries under a layer directory, each inode once; directories count nothing.
import * as fs from 'node:fs';
import * as path from 'node:path';

export async function contentSize(dir: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(d, { withFileTypes: true });
    } catch {
      return; // gone while walking (a running container)
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        await walk(p);
        continue;
      }
      const st = await fs.promises.lstat(p).catch(() => undefined);
      if (!st) continue;
      const key = `${st.dev}:${st.ino}`;
      if (st.nlink > 1) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      total += st.size;
    }
  };
  await walk(dir);
  return total;
}
