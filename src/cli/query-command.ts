// `engage-etl query "SQL"`: ad-hoc SQL over the warehouse, opened read-only, written by DuckDB's own writers.
import { Command, Option } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { FatalError } from '../errors.js';
import type { Warehouse } from '../load/warehouse.js';
import { withPublishedDatabase } from '../store/open-snapshot-store.js';
import { absentHistoryNote, viewsReadingAbsentHistory } from '../views/absent-history.js';
import { memoryLimitArg } from './memory-limit-arg.js';
import { QUERY_FORMATS, writeQueryResult } from './query-output.js';
import type { QueryFormat } from './query-output.js';

export function makeQueryCommand(): Command {
  return new Command('query')
    .description('Run SQL against the DuckDB warehouse (read-only); the analyst views are in schema "analytics".')
    .argument(
      '<sql>',
      'SQL: one statement, or several separated by ";" (--format table shows each result in order), e.g. "SELECT * FROM analytics.purchases_daily ORDER BY day DESC LIMIT 7"',
    )
    .option(
      '--db <file>',
      'DuckDB database file (the published state of the last successful run; works while a run goes on), or s3://BUCKET/KEY.duckdb (downloaded, opened read-only)',
      DEFAULT_DB_PATH,
    )
    .addOption(
      new Option(
        '--format <format>',
        'output format (csv, json, ndjson and parquet stream every row; table shows the first 1,000)',
      )
        .choices(QUERY_FORMATS as string[])
        .default('table'),
    )
    .option('--output <file>', 'write to this file instead of stdout')
    .option(
      '--memory-limit <size>',
      'DuckDB memory limit: caps the memory of a large export; raise it for heavy joins',
      memoryLimitArg,
      '256MB',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  engage-etl query "SELECT * FROM analytics.purchases_daily ORDER BY day DESC LIMIT 7"\n  engage-etl query "SELECT * FROM revenue" --format parquet --output revenue.parquet',
    )
    .action(async (sql: string, flags: { db: string; format: QueryFormat; output?: string; memoryLimit: string }) => {
      await withPublishedDatabase(
        flags.db,
        async (wh) => {
          try {
            await wh.withConnection((conn) =>
              writeQueryResult(
                conn,
                sql,
                { format: flags.format, ...(flags.output ? { output: flags.output } : {}) },
                process.stdout,
              ),
            );
          } catch (err) {
            throw await withAbsentHistoryNote(wh, err);
          }
        },
        { memoryLimit: flags.memoryLimit },
      );
    });
}

/** A failed query that read a history table the database lacks (or a view reading one) says why, and what fixes it. */
async function withAbsentHistoryNote(wh: Warehouse, err: unknown): Promise<unknown> {
  if (wh.absentHistory.length === 0 || !(err instanceof Error)) return err;
  const views = await viewsReadingAbsentHistory(wh);
  if (![...wh.absentHistory, ...views].some((name) => err.message.includes(name))) return err;
  return new FatalError(`${err.message}\n${absentHistoryNote(wh.absentHistory, views)}`, { cause: err });
}
