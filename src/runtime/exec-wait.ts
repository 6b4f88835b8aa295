// runc's start (containerd's Tasks.Start) returns once it has let the container's init go on to exec the command: the
// exec itself may not have happened yet. A signal that reaches the init before it (a stop right after the start)
// meets runc's Go runtime as the namespace's pid 1, which exits with 2 instead of the command's answer to the
// signal; a read of the logs finds nothing the command wrote. The reference's slower start leaves the exec done
// before it answers; berth's start waits for it (it is usually done by the time containerd answers).
import * as fs from 'node:fs';

/** The name runc's init gives itself (prctl) until it execs the command. */
const RUNC_INIT = 'runc:[2:INIT]';

/** Whether process `pid` is still runc's init (false once it has exec'd, or is gone). */
export function stillRuncInit(pid: number, procRoot = '/proc'): boolean {
  try {
    return fs.readFileSync(`${procRoot}/${pid}/comm`, 'latin1').startsWith(RUNC_INIT);
  } catch {
    return false;
  }
}

/** Resolves once process `pid` has exec'd the container's command (or is gone), `maxMs` from now at most. */
export async function execDone(pid: number, maxMs = 200, procRoot = '/proc'): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (stillRuncInit(pid, procRoot) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
}
