// Start-up's garbage given back once berthd serves (docs/performance.md, "Idle memory"; issue 20, goal 5). Start-up
// leaves V8's old space with ~16.5 MB of pages committed for ~12 MB live (the protos' JSON, the records read, the
// module loader's strings: mostly garbage spread over pages that also hold live objects), and the young generation at
// its full two semi-spaces. V8's memory reducer compacts the one and shrinks the other (from-space uncommitted), but
// only ~8 s after start-up's last full GC (kLongDelayMs, fixed in V8 11.3): until then idle RSS is ~5 MB higher. A
// second after berthd is ready it asks V8 for what the memory reducer would do, at once (50-150 ms of the main
// thread, once, while nothing else runs): V8's low-memory GC (Isolate::LowMemoryNotification: full GCs with memory
// reduction until nothing more is freed), which node reaches only through an inspector session's
// HeapProfiler.collectGarbage (in-process: no port, no debugger). Without the inspector (a node built without it):
// one compacting full GC, with the gc function from a context of its own (berthd's global scope gets none), which
// leaves the young generation as it is.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/** One compacting full GC; false where node offers none (nothing done). */
export function compactHeap(): boolean {
  let gc: unknown;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc');
  } catch {
    return false;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') return false;
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    (gc as () => void)();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
  return true;
}

/**
 * V8's low-memory GC through an in-process inspector session: resolves once it is done (V8 runs it from a task of its
 * own), false where node has no inspector (nothing done). The session is disconnected on a later turn: disconnecting
 * it from within the method's own callback hangs node 20's main thread.
 */
export function lowMemoryGc(): Promise<boolean> {
  let session: import('node:inspector').Session;
  try {
    session = new (require('node:inspector') as typeof import('node:inspector')).Session();
    session.connect();
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    session.post('HeapProfiler.collectGarbage', (err) => {
      setImmediate(() => session.disconnect());
      resolve(!err);
    });
  });
}

/** lowMemoryGc() (or, without an inspector, compactHeap()) after `delayMs` (the timer keeps nothing alive). */
export function compactHeapSoon(delayMs = 1000): void {
  setTimeout(() => void lowMemoryGc().then((done) => done || compactHeap()), delayMs).unref();
}
