// Start-up without the optimizing compiler (docs/performance.md, "Idle memory"; issue 20, goal 5). bin/berthd starts
// node with a large V8 interrupt budget (START_INTERRUPT_BUDGET): the code that runs only while berthd starts — the
// module loader's path functions over ~480 modules, the records' reconcile, the first /proc sweep — stays in the
// interpreter and baseline code instead of reaching TurboFan. A single TurboFan compilation touches about 3.4 MB of
// the node binary's pages (the compiler's own code), which then count in the idle daemon's RSS, for code that never
// runs again. Once berthd serves, steadyJit() puts V8's default budget back: the API's hot paths tier up as before.
// Functions whose feedback was made during start-up keep the large budget until they have used it once (a few
// thousand calls of interpreted code at most), then tier up as any other.
import * as v8 from 'node:v8';

/** What bin/berthd gives node (`--interrupt-budget`): 150× V8's default. */
export const START_INTERRUPT_BUDGET = 10_000_000;
/** V8's default interrupt budget (V8 11.3, Node 20). */
export const STEADY_INTERRUPT_BUDGET = 67_584;

let steady = false;

/** Puts V8's default interrupt budget back (once; when node was started with the start-up budget). */
export function steadyJit(): void {
  if (steady) return;
  steady = true;
  if (process.execArgv.some((a) => a.startsWith('--interrupt-budget='))) v8.setFlagsFromString(`--interrupt-budget=${STEADY_INTERRUPT_BUDGET}`);
}
