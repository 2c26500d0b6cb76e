// The command line's V8 heap after the fetch: one full collection that gives the emptied pages back to the system. A
// run's plan and lists die when the fetch ends, but nothing collects them: the export that follows allocates almost
// nothing in JavaScript, so V8 holds the fetch's whole heap beside DuckDB's export (137 MB of V8 pages through a
// 38-second export in a 7-minute 20k run). Node 22 and 24 keep the pages of a regular full collection pooled for about
// 8 seconds more; V8's last-resort collection releases them at once (docs/performance.md, issue 27, stop 37).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let allowed = false;
let collect: Collect | undefined;

/**
 * Lets `releaseHeap` collect. Only the CLI calls this (as it bounds the heap's growth): a program that imports the
 * library keeps its own heap policy, and `releaseHeap` does nothing there.
 */
export function allowHeapRelease(): void {
  allowed = true;
}

/**
 * Collects the whole heap now and returns its free pages, if the CLI allowed it. A regular collection first (Node 20
 * ignores the options below and collects nothing with them), then the last-resort one, which frees what Node 22 and
 * 24 would otherwise keep pooled. Tens of milliseconds, once per run.
 */
export function releaseHeap(): boolean {
  if (!allowed) return false;
  if (!collect) {
    // `gc` is defined in contexts created after the flag is set (the main context has none).
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  }
  collect();
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
