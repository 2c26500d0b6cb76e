// `engage-etl query "SQL"`: ad-hoc SQL over the warehouse, opened read-only.
import { Command, Option } from 'commander';
import { openPublished } from '../load/published-snapshot.js';
import { formatRows, ROW_FORMATS } from './format-rows.js';
import type { RowFormat } from './format-rows.js';

export function makeQueryCommand(): Command {
  return new Command('query')
    .description('Run SQL against the DuckDB warehouse (read-only).')
    .argument('<sql>', 'the SQL statement, e.g. "SELECT * FROM revenue LIMIT 5"')
    .option('--db <file>', 'DuckDB database file (the published state of the last successful run; works while a run goes on)', 'data/engage.duckdb')
    .addOption(new Option('--format <format>', 'output format').choices(ROW_FORMATS as string[]).default('table'))
    .action(async (sql: string, flags: { db: string; format: RowFormat }) => {
      const wh = await openPublished(flags.db);
      try {
        process.stdout.write(formatRows(await wh.query(sql), flags.format));
      } finally {
        await wh.close();
      }
    });
}
