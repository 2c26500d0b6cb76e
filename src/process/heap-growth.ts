// The command line's V8 heap policy: collect old garbage before the heap grows to four times what is alive. A run's
// parsed answers and commit buffers die young or a commit later; V8 sizes its next full collection at up to 4× the live
// set, so without a policy the heap holds several times the run's live data as garbage at the peak.
import { setFlagsFromString } from 'node:v8';

/**
 * Growth of the old generation between full collections, in percent of what the last one left alive (V8's
 * `--heap-growing-percent`; V8 otherwise picks up to 300 % on a machine with 2 GB of heap or more). 50 % trades some
 * CPU for a peak that follows the live set (docs/decisions.md, "The entry point's memory settings").
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth for this process unless the user chose one (`node --heap-growing-percent=N` or NODE_OPTIONS). V8
 * reads the flag at every full collection, so setting it at start-up takes effect for the whole run. Only the CLI
 * calls this: a program that imports the library keeps its own heap policy. Returns whether it set the growth.
 */
export function boundHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): boolean {
  if ([...execArgv, nodeOptions].some((arg) => /--heap[-_]growing[-_]percent/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
