// `engage-etl export`: rewrite every Parquet partition from DuckDB (atomically, with manifests), refresh the analyst
// views, and with --views-sql write the SQL that defines those views over the Parquet tree.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { assertWritableDir } from '../export/assert-writable-dir.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import { RunLock } from '../load/run-lock.js';
import { Warehouse } from '../load/warehouse.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import { parquetViewsSql } from '../views/parquet-views-sql.js';

export function makeExportCommand(): Command {
  return new Command('export')
    .description('Re-export every table of the warehouse to Parquet and refresh the analyst views.')
    .option('--db <file>', 'DuckDB database file', 'data/engage.duckdb')
    .option('--out <dir>', 'Parquet output folder', 'data/parquet')
    .option('--views-sql <file>', 'also write the analyst views over the Parquet tree to this SQL file, for any DuckDB')
    .action(async (flags: { db: string; out: string; viewsSql?: string }) => {
      await assertWritableDir(flags.out);
      const lock = await RunLock.acquire(flags.db, { command: 'engage-etl export' });
      try {
        const wh = await Warehouse.open(flags.db);
        try {
          const s = await exportParquet(wh, flags.out, { scope: 'all' });
          await exportBookkeeping(wh, flags.out);
          await createAnalyticsViews(wh);
          process.stdout.write(`exported ${s.rowsWritten.toLocaleString('en-US')} rows in ${s.filesWritten} files to ${s.outDir} (${s.filesRemoved} stale files removed)\n`);
        } finally {
          await wh.close();
        }
      } finally {
        await lock.release();
      }
      if (flags.viewsSql) {
        await writeFile(flags.viewsSql, parquetViewsSql(resolve(flags.out)));
        process.stdout.write(`analyst views over ${resolve(flags.out)}: ${resolve(flags.viewsSql)} (run it in any DuckDB: duckdb -init ${flags.viewsSql})\n`);
      }
    });
}
