// Start-up's garbage given back once berthd serves (docs/performance.md, "Idle memory"; issue 20, goal 5). Start-up
// leaves V8's old space with ~16.5 MB of pages committed for ~12 MB live (the protos' JSON, the records read, the
// module loader's strings: mostly garbage spread over pages that also hold live objects). V8's memory reducer
// compacts them, but only ~8 s after start-up's last full GC (kLongDelayMs, fixed in V8 11.3): until then idle RSS is
// ~3.5 MB higher. One compacting full GC a second after berthd is ready gives the same pages back then (50-150 ms of
// the main thread, once, while nothing else runs). The gc function comes from a context of its own: berthd's global
// scope gets none.
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

/** compactHeap() after `delayMs` (the timer keeps nothing alive). */
export function compactHeapSoon(delayMs = 1000): void {
  setTimeout(compactHeap, delayMs).unref();
}
