// Child process of the query memory benchmark: `engage-etl query`'s writer streams every row of table "t" of a DuckDB
// file to stdout in one format, then prints its peak RSS on stderr. A child, so each size starts from a clean heap.
import { writeQueryResult } from '../src/cli/query-output.js';
import type { QueryFormat } from '../src/cli/query-output.js';
import { Warehouse } from '../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../src/streams/table-specs.js';

export interface QueryChildResult {
  /** process.resourceUsage().maxRSS of the querying process, DuckDB included. */
  peakRssMb: number;
  ms: number;
}

async function main(): Promise<void> {
  const [db, format] = process.argv.slice(2) as [string, QueryFormat];
  // The memory limit `engage-etl query` opens with by default.
  const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true, memoryLimit: '256MB' });
  try {
    const started = performance.now();
    await wh.withConnection((conn) => writeQueryResult(conn, 'SELECT * FROM "t"', { format }, process.stdout));
    const result: QueryChildResult = {
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      ms: performance.now() - started,
    };
    process.stderr.write(`${JSON.stringify(result)}\n`);
  } finally {
    await wh.close();
  }
}

await main();
