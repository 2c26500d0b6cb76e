// `engage-etl export`: rewrite every Parquet partition from DuckDB (atomically, with manifests), refresh the analyst
// views, and with --views-sql write the SQL that defines those views over the Parquet tree.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DB_PATH, DEFAULT_OUT_DIR } from '../config/default-paths.js';
import { assertWritableDir } from '../export/assert-writable-dir.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import { openWorkingCopy, publishSnapshot } from '../load/published-snapshot.js';
import { RunLock } from '../process/run-lock.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import { parquetViewsSql } from '../views/parquet-views-sql.js';

export function makeExportCommand(): Command {
  return new Command('export')
    .description('Re-export every table of the warehouse to Parquet, repairing damaged files and manifests, and refresh the analyst views.')
    .option('--db <file>', 'DuckDB database file (its working copy .<name>.work is exported, then published over it)', DEFAULT_DB_PATH)
    .option('--out <dir>', 'Parquet output folder', DEFAULT_OUT_DIR)
    .option('--views-sql <file>', 'also write the analyst views over the Parquet tree to this SQL file, for any DuckDB')
    .action(async (flags: { db: string; out: string; viewsSql?: string }) => {
      await assertWritableDir(flags.out);
      const lock = await RunLock.acquire(flags.db, { command: 'engage-etl export' });
      try {
        const { warehouse: wh, notes } = await openWorkingCopy(flags.db);
        try {
          for (const note of notes) process.stderr.write(`warning: ${note.message}\n`);
          await wh.allowAnalyticsMemory();
          const s = await exportParquet(wh, flags.out, { scope: 'all' });
          for (const repair of s.repaired) process.stderr.write(`repaired ${repair.table}: ${repair.problems.join('; ')}\n`);
          await exportBookkeeping(wh, flags.out);
          await createAnalyticsViews(wh);
          // The export cleared the dirty marks and refreshed the views: readers of --db see that state too.
          for (const note of (await publishSnapshot(wh, flags.db)).notes) process.stderr.write(`warning: ${note.message}\n`);
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
