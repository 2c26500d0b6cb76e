// `engage-etl query "SQL"`: ad-hoc SQL over the warehouse, opened read-only, written by DuckDB's own writers.
import { Command, Option } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { withPublishedDatabase } from '../store/open-snapshot-store.js';
import { memoryLimitArg } from './memory-limit-arg.js';
import { QUERY_FORMATS, writeQueryResult } from './query-output.js';
import type { QueryFormat } from './query-output.js';

export function makeQueryCommand(): Command {
  return new Command('query')
    .description('Run SQL against the DuckDB warehouse (read-only); the analyst views are in schema "analytics".')
    .argument('<sql>', 'SQL: one statement, or several separated by ";" (--format table shows each result in order), e.g. "SELECT * FROM analytics.purchases_daily ORDER BY day DESC LIMIT 7"')
    .option('--db <file>', 'DuckDB database file (the published state of the last successful run; works while a run goes on), or s3://BUCKET/KEY.duckdb (downloaded, opened read-only)', DEFAULT_DB_PATH)
    .addOption(new Option('--format <format>', 'output format (csv, json, ndjson and parquet stream every row; table shows the first 1,000)').choices(QUERY_FORMATS as string[]).default('table'))
    .option('--output <file>', 'write to this file instead of stdout')
    .option('--memory-limit <size>', 'DuckDB memory limit: caps the memory of a large export; raise it for heavy joins', memoryLimitArg, '256MB')
    .addHelpText('after', '\nExamples:\n  engage-etl query "SELECT * FROM analytics.purchases_daily ORDER BY day DESC LIMIT 7"\n  engage-etl query "SELECT * FROM revenue" --format parquet --output revenue.parquet')
    .action(async (sql: string, flags: { db: string; format: QueryFormat; output?: string; memoryLimit: string }) => {
      await withPublishedDatabase(flags.db, (wh) => wh.withConnection((conn) => writeQueryResult(conn, sql, { format: flags.format, ...(flags.output ? { output: flags.output } : {}) }, process.stdout)), { memoryLimit: flags.memoryLimit });
    });
}
