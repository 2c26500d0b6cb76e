// The command line's V8 heap policy: collect old garbage before the heap grows to four times what is alive. A run
// promotes every fetched row to the old generation (rows wait for their commit past two young collections) and lets it
// die a commit later; V8 sizes its next full collection at up to 4× the live set, so the demo's first `npm start` held
// about 100 MB alive in a 410–450 MB heap (docs/performance.md, issue 27).
import { setFlagsFromString } from 'node:v8';

/**
 * Growth of the old generation between full collections, in percent of what the last one left alive (V8's
 * `--heap-growing-percent`; V8 otherwise picks up to 300 % on a machine with 2 GB of heap or more). At 50 % the demo's
 * peak V8 heap fell from 410–450 MB to 225–249 MB (140–180 MB most of the run), its peak RSS from 820 to 628 MB, for
 * 11 % more CPU and 2.4 % more wall time (docs/performance.md).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth for this process unless the user chose one (`node --heap-growing-percent=N` or NODE_OPTIONS). V8
 * reads the flag at every full collection, so setting it at start-up takes effect for the whole run. Only the CLI
 * calls this: a program that imports the library keeps its own heap policy. Returns whether it set the growth.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if ([...execArgv, nodeOptions].some((arg) => /--heap[-_]growing[-_]percent/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
