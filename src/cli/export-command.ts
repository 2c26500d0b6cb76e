// `engage-etl export`: rewrite every Parquet partition from DuckDB (atomically, with manifests), refresh the analyst
// views, and with --views-sql write the SQL that defines those views over the Parquet tree.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DB_PATH, DEFAULT_OUT_DIR } from '../config/default-paths.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import { SettingsStore } from '../load/settings-store.js';
import { openSnapshotStore } from '../store/open-snapshot-store.js';
import { isObjectUrl } from '../store/location.js';
import { openPlace } from '../store/open-place.js';
import type { OpenedPlace } from '../store/open-place.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import { parquetViewsSql } from '../views/parquet-views-sql.js';

export function makeExportCommand(): Command {
  return new Command('export')
    .description(
      'Re-export every table of the warehouse to Parquet, repairing damaged files and manifests, and refresh the analyst views.',
    )
    .option(
      '--db <file>',
      'DuckDB database file (its working copy .<name>.work is exported, then published over it), or s3://BUCKET/KEY.duckdb',
      DEFAULT_DB_PATH,
    )
    .option('--out <dir>', 'Parquet output folder, or s3://BUCKET/PREFIX', DEFAULT_OUT_DIR)
    .option(
      '--work-dir <dir>',
      'with s3:// --db or --out: local folder for the downloaded database and files being uploaded (default: a temp folder)',
    )
    .option('--views-sql <file>', 'also write the analyst views over the Parquet tree to this SQL file, for any DuckDB')
    .action(async (flags: { db: string; out: string; workDir?: string; viewsSql?: string }) => {
      const workDir = flags.workDir ? { workDir: flags.workDir } : {};
      const snapshots = await openSnapshotStore(flags.db, workDir);
      let out: OpenedPlace | undefined;
      let workspace: string | undefined;
      try {
        // Before the output is opened or the lock taken: a --db that names no engage-etl database changes nothing.
        await snapshots.requireDatabase();
        out = await openPlace(flags.out, workDir);
        const lock = await snapshots.lock('engage-etl export');
        try {
          const { warehouse: wh, notes } = await snapshots.openWorkingCopy();
          try {
            for (const note of notes) process.stderr.write(`warning: ${note.message}\n`);
            await wh.liftCommitLimits();
            // A database that exports one workspace of a shared lake writes into that workspace's folders only.
            workspace = await new SettingsStore(wh).workspace();
            const place = placeOfWorkspace(out.place, workspace);
            const s = await exportParquet(wh, place, { scope: 'all' });
            for (const repair of s.repaired)
              process.stderr.write(`repaired ${repair.table}: ${repair.problems.join('; ')}\n`);
            await exportBookkeeping(wh, place);
            await createAnalyticsViews(wh);
            // The export cleared the dirty marks and refreshed the views: readers of --db see that state too.
            for (const note of (await snapshots.publish(wh)).notes) process.stderr.write(`warning: ${note.message}\n`);
            process.stdout.write(
              `exported ${s.rowsWritten.toLocaleString('en-US')} rows in ${s.filesWritten} files to ${s.outDir} (${s.filesRemoved} stale files removed)\n`,
            );
          } finally {
            await wh.close();
          }
        } finally {
          await lock.release();
        }
      } finally {
        await snapshots.close();
        await out?.close();
      }
      if (flags.viewsSql && isObjectUrl(flags.out)) {
        process.stderr.write(
          `--views-sql: the views read a local Parquet tree; for ${flags.out} see docs/object-storage.md (DuckDB with httpfs)\n`,
        );
      } else if (flags.viewsSql) {
        await writeFile(flags.viewsSql, parquetViewsSql(resolve(flags.out), workspace));
        process.stdout.write(
          `analyst views over ${resolve(flags.out)}: ${resolve(flags.viewsSql)} (run it in any DuckDB: duckdb -init ${flags.viewsSql})\n`,
        );
      }
    });
}
