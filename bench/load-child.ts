// Child process of the memory benchmark: streams N synthetic rows page by page through the pipeline's own Committer
// into a fresh DuckDB file, then prints one JSON line with its peak RSS. A child, so each size starts from a clean heap.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Warehouse } from '../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import { Committer } from '../src/pipeline/committer.js';
import { syntheticPages } from './synthetic-rows.js';

export interface LoadChildResult {
  rows: number;
  ms: number;
  /** process.resourceUsage().maxRSS: the peak resident set of the whole process, DuckDB included. */
  peakRssMb: number;
  tableRows: number;
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2]);
  if (!Number.isInteger(rows) || rows < 1)
    throw new Error(`usage: node load-child.js <rows ≥ 1>, got ${process.argv[2]}`);
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-rss-'));
  try {
    const wh = await Warehouse.open(join(dir, 'load.duckdb'), WAREHOUSE_TABLES);
    try {
      const started = performance.now();
      const committer = new Committer(wh, 'bench-rss', () => undefined);
      for (const page of syntheticPages(rows))
        await committer.add({
          upserts: [{ table: 'purchase_quantity', rows: page }],
          replaces: [],
          state: [],
          holes: [],
        });
      await committer.drain();
      const ms = performance.now() - started;
      const [count] = await wh.query('SELECT count(*) AS n FROM purchase_quantity');
      const result: LoadChildResult = {
        rows,
        ms,
        peakRssMb: process.resourceUsage().maxRSS / 1024,
        tableRows: Number(count?.['n'] ?? 0),
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      await wh.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
