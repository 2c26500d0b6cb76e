// `engage-etl report`: write the static HTML report of the warehouse (charts and freshness), opened read-only.
import { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { reportPathFor } from '../config/report-path.js';
import { withPublishedDatabase } from '../store/open-snapshot-store.js';
import { memoryLimitArg } from './memory-limit-arg.js';
import { writeReport } from '../report/write-report.js';
import { REPORT_MEMORY_LIMIT } from '../load/warehouse.js';

export function makeReportCommand(): Command {
  return new Command('report')
    .description(
      'Write one self-contained HTML report (revenue, sessions, KPIs, events, segments, Canvas, campaigns, freshness, runs) that opens offline.',
    )
    .option(
      '--db <file>',
      'DuckDB database file, or s3://BUCKET/KEY.duckdb (downloaded, opened read-only)',
      DEFAULT_DB_PATH,
    )
    .option('--output <file>', 'the HTML file to write (default: report.html beside --db)')
    .option(
      '--memory-limit <size>',
      "DuckDB memory limit of the report's queries; raise it if one runs out of memory on a very large database",
      memoryLimitArg,
      REPORT_MEMORY_LIMIT,
    )
    .action(async (flags: { db: string; output?: string; memoryLimit: string }) => {
      const r = await withPublishedDatabase(
        flags.db,
        (wh, store) => writeReport(wh, reportPathFor(flags.db, flags.output), { database: store.description }),
        { memoryLimit: flags.memoryLimit },
      );
      process.stdout.write(`report: ${r.path} (${(r.bytes / 1024).toFixed(0)} KB, ${r.charts.length} charts)\n`);
    });
}
