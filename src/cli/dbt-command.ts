// `engage-etl dbt`: write the dbt source package of the warehouse as it is (sources.yml with descriptions, types, key
// tests and freshness; the composite-key test), over the DuckDB file or the Parquet tree. Read-only on the database.
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { parseDuration } from '../config/duration.js';
import { ConfigError } from '../errors.js';
import { writeDbtPackage } from '../dbt/dbt-package.js';
import { dbtSourcesYaml } from '../dbt/dbt-sources.js';
import { readWarehouseCatalog } from '../dbt/warehouse-catalog.js';
import { withPublishedDatabase } from '../store/snapshot-store.js';
import { parseLocation } from '../store/location.js';

interface DbtFlags {
  db: string;
  output: string;
  parquet?: string;
  every: string;
}

export function makeDbtCommand(): Command {
  return new Command('dbt')
    .description('Write a dbt source package for the warehouse: every table and analyst view, every column with its description and type, key tests and freshness (dbt-duckdb).')
    .option('--db <file>', 'DuckDB database file (the published state of the last successful run), or s3://BUCKET/KEY.duckdb', DEFAULT_DB_PATH)
    .option('--output <dir>', 'the dbt package folder; engage-etl rewrites only models/engage_etl_sources.yml and macros/engage_etl_unique_key.sql in it (and creates dbt_project.yml when missing)', 'dbt')
    .option('--parquet <location>', 'read the tables from the Parquet tree the runs export (--out: a folder or s3://BUCKET/PREFIX) instead of the DuckDB file: each table gets meta.external_location')
    .option('--every <duration>', 'time between scheduled runs; freshness warns when a series table is older than this plus its unit, errors a period later', '24h')
    .addHelpText('after', '\nExamples:\n  engage-etl dbt --output analytics/engage_etl\n  engage-etl dbt --parquet data/parquet\n  engage-etl dbt --db s3://lake/state/engage.duckdb --parquet s3://lake/warehouse\n\nThen: dbt source freshness, dbt test --select source:engage_etl (docs/analysts.md shows the profile).')
    .action(async (flags: DbtFlags) => {
      const everyHours = parseDuration(flags.every, '--every') / 3_600_000;
      const parquet = flags.parquet === undefined ? undefined : parquetLocation(flags.parquet);
      const catalog = await withPublishedDatabase(flags.db, (wh) => readWarehouseCatalog(wh));
      const yaml = dbtSourcesYaml(catalog, { everyHours, ...(parquet === undefined ? {} : { parquet }) });
      const outcome = await writeDbtPackage(flags.output, yaml);
      for (const path of outcome.written) process.stdout.write(`wrote ${flags.output}/${path}\n`);
      for (const path of outcome.unchanged) process.stdout.write(`unchanged ${flags.output}/${path}\n`);
      const empty = parquet === undefined ? [] : catalog.tables.filter((t) => t.rows === 0).map((t) => t.name);
      if (empty.length > 0) {
        process.stderr.write(`engage-etl: ${empty.length} table(s) hold no rows, so no Parquet file yet; dbt fails reading them until a run loads some: ${empty.join(', ')}\n`);
      }
    });
}

/** The Parquet location as the sources name it: an absolute folder that exists, or the s3:// URL. */
function parquetLocation(raw: string): string {
  const location = parseLocation(raw, '--parquet');
  if (location.kind === 's3') return location.url.replace(/\/+$/, '');
  if (!existsSync(location.path)) {
    throw new ConfigError('--parquet', `${location.path} does not exist; give the folder your runs export to (their --out, data/parquet by default)`);
  }
  return location.path;
}
