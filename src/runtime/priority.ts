// berthd's main thread (the API, and routing: docs/logging.md) can run ahead of the work it hands off
// (BERTH_API_NICE, a negative nice; the default API_NICE is 0: nothing raised): with SCHED_RESET_ON_FORK, so that no
// thread or process it starts afterwards inherits the raised priority
// (the capture and log reader threads, the thread pool, containerd when berth supervises it, the command helper,
// every tool: all at nice 0, as before). On 2 cores with containers writing flat out, the main thread otherwise
// waits for a core behind the writers, their shims and the capture thread: a `GET /_ping` took 20-40 ms at the
// 99th percentile while it used under a quarter of a core (issue 20, goal 1; bench:pingload's berthMainWaitS).
// Linux with util-linux's chrt and the privilege to raise a priority (root); otherwise nothing changes.
// Not the default: in interleaved A/Bs (seventh session, docs/performance.md) nice −5 left the main thread waiting less
// under bench:pingload's writers but cost the API's throughput under bench:system's load (its client and the rest of
// the machine get less of the two cores): /_ping and /version req/s medians 0.65× those at nice 0.
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';

export const API_NICE = 0;

/** Raises the calling (main) thread's priority as above; false (and nothing changed) where it cannot. Call it
 *  before starting any thread or process that must not share it. */
export function raiseApiThread(nice = API_NICE): boolean {
  if (process.platform !== 'linux' || nice >= 0) return false;
  try {
    // chrt -p on the process's id changes that thread only: the main thread (its tid is the pid).
    execFileSync('chrt', ['--other', '--reset-on-fork', '-p', '0', String(process.pid)], { stdio: 'ignore', timeout: 5000 });
    os.setPriority(nice); // pid 0: the calling thread, on Linux
    return true;
  } catch {
    return false;
  }
}
