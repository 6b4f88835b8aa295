import * as fs from 'node:fs';

/** Names the calling thread (its comm: what top -H, perf and /proc show; at most 15 bytes), on Linux. */
export function nameThread(name: string): void {
  try {
    fs.writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    /* not Linux, or /proc not mounted: the name is only for the eye */
  }
}
