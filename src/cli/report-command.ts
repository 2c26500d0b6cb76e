// `engage-etl report`: write the static HTML report of the warehouse (charts and freshness), opened read-only.
import { Command } from 'commander';
import { DEFAULT_DB_PATH, DEFAULT_REPORT_PATH } from '../config/default-paths.js';
import { Warehouse } from '../load/warehouse.js';
import { writeReport } from '../report/write-report.js';

export function makeReportCommand(): Command {
  return new Command('report')
    .description('Write one self-contained HTML report (revenue, sessions, KPIs, events, segments, Canvas, campaigns, freshness, runs) that opens offline.')
    .option('--db <file>', 'DuckDB database file', DEFAULT_DB_PATH)
    .option('--output <file>', 'the HTML file to write', DEFAULT_REPORT_PATH)
    .action(async (flags: { db: string; output: string }) => {
      const wh = await Warehouse.open(flags.db, { readOnly: true });
      try {
        const r = await writeReport(wh, flags.output);
        process.stdout.write(`report: ${r.path} (${(r.bytes / 1024).toFixed(0)} KB, ${r.charts.length} charts)\n`);
      } finally {
        await wh.close();
      }
    });
}
