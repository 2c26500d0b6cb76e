// The CLI's heap release after a run's fetch (src/process/release-heap.ts): in a process of its own, on the Node that
// runs the tests, a heap filled and then dropped is collected and its pages go back to the system at once; without the
// CLI's permission nothing is collected. What it saves in a run is measured by the bench (docs/performance.md).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const MODULE = pathToFileURL(resolve('dist/src/process/release-heap.js')).href;

/** Fills about 130 MB of V8 heap, drops it, releases (allowed or not) and prints the heap and RSS before and after. */
const CHILD = (allow: boolean) => `
const { allowHeapRelease, releaseHeap } = await import(${JSON.stringify(MODULE)});
if (${allow}) allowHeapRelease();
let rows = [];
for (let i = 0; i < 1e6; i++) rows.push({ i, s: 'row ' + i, o: { k: i } });
const mb = () => ({ heap: process.memoryUsage().heapTotal / 2 ** 20, rss: process.memoryUsage().rss / 2 ** 20 });
const full = mb();
rows = null;
const released = releaseHeap();
const after = mb();
console.log(JSON.stringify({ full, released, after, gcGlobal: typeof globalThis.gc }));
`;

async function child(allow: boolean): Promise<{ full: { heap: number; rss: number }; released: boolean; after: { heap: number; rss: number }; gcGlobal: string }> {
  const { stdout } = await run(process.execPath, ['--max-semi-space-size=8', '--input-type=module', '-e', CHILD(allow)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout);
}

describe('releasing the heap after the fetch', () => {
  it('collects what died and gives the pages back at once when the CLI allowed it', async () => {
    const r = await child(true);
    expect(r.released).toBe(true);
    expect(r.full.heap).toBeGreaterThan(100);
    expect(r.after.heap).toBeLessThan(40);
    // Node 20 unmaps the emptied pages a moment later; 22 and 24 at once through the last-resort collection.
    if (Number(process.versions.node.split('.')[0]) >= 22) expect(r.full.rss - r.after.rss).toBeGreaterThan(80);
    // The flag that exposes the collector leaves the program's own global alone.
    expect(r.gcGlobal).toBe('undefined');
  });

  it('does nothing in a program that imports the library without the CLI', async () => {
    const r = await child(false);
    expect(r.released).toBe(false);
    expect(r.after.heap).toBeGreaterThan(100);
  });
});
