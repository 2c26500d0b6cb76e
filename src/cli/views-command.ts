// `engage-etl views`: print the SQL of the analyst views, over the Parquet tree (--parquet DIR) for any DuckDB, or as
// created inside the warehouse.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_OUT_DIR } from '../config/default-paths.js';
import { WORKSPACE_PATTERN } from '../config/load-pipeline-file.js';
import { ConfigError } from '../errors.js';
import { analyticsViewsSql } from '../views/analytics-views.js';
import { parquetViewsSql } from '../views/parquet-views-sql.js';

export function makeViewsCommand(): Command {
  return new Command('views')
    .description('Print the SQL that defines the analyst views (schema "analytics"), by default over the Parquet tree.')
    .option(
      '--parquet <dir>',
      'Parquet folder the views read (written into the SQL as an absolute path)',
      DEFAULT_OUT_DIR,
    )
    .option('--warehouse', 'print the views as created inside the DuckDB warehouse instead (over its tables)')
    .option(
      '--workspace <name>',
      'in a lake shared by several workspaces, the one to read (<table>/workspace=NAME/); every view then starts with a workspace column',
    )
    .option('--output <file>', 'write the SQL to this file instead of stdout')
    .addHelpText('after', '\nExample:\n  engage-etl views --parquet data/parquet > views.sql && duckdb -init views.sql')
    .action(async (flags: { parquet: string; warehouse?: boolean; output?: string; workspace?: string }) => {
      if (flags.workspace !== undefined && !WORKSPACE_PATTERN.test(flags.workspace)) {
        throw new ConfigError(
          '--workspace',
          `${JSON.stringify(flags.workspace)} is not a workspace name; use letters, digits, "_" and "-" only, as in the pipeline's workspace:`,
        );
      }
      const sql = flags.warehouse
        ? analyticsViewsSql(undefined, flags.workspace)
        : parquetViewsSql(resolve(flags.parquet), flags.workspace);
      if (flags.output) await writeFile(flags.output, sql);
      else process.stdout.write(sql);
    });
}
