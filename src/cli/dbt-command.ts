// `engage-etl dbt`: write the dbt source package of the warehouse as it is (sources.yml with descriptions, types, key
// tests and freshness; the composite-key test), over the DuckDB file or the Parquet tree (the tables its manifests
// name files of). Read-only on the database and on the tree.
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { parseDuration } from '../config/duration.js';
import { ConfigError } from '../errors.js';
import { writeDbtPackage } from '../dbt/dbt-package.js';
import { dbtSourcesYaml } from '../dbt/dbt-sources.js';
import type { ParquetLake } from '../dbt/dbt-sources.js';
import { lakeAbsences } from '../dbt/lake-absences.js';
import { readWarehouseCatalog } from '../dbt/warehouse-catalog.js';
import type { WarehouseCatalog } from '../dbt/warehouse-catalog.js';
import { withPublishedDatabase } from '../store/open-snapshot-store.js';
import { parseLocation } from '../store/location.js';
import type { Location } from '../store/location.js';
import { openPlace } from '../store/open-place.js';
import { placeOfWorkspace } from '../store/workspace-place.js';

interface DbtFlags {
  db: string;
  output: string;
  parquet?: string;
  every: string;
}

export function makeDbtCommand(): Command {
  return new Command('dbt')
    .description(
      'Write a dbt source package for the warehouse: every table and analyst view, every column with its description and type, key tests and freshness (dbt-duckdb).',
    )
    .option(
      '--db <file>',
      'DuckDB database file (the published state of the last successful run), or s3://BUCKET/KEY.duckdb',
      DEFAULT_DB_PATH,
    )
    .option(
      '--output <dir>',
      'the dbt package folder; engage-etl rewrites only models/engage_etl_sources.yml and macros/engage_etl_unique_key.sql in it (and creates dbt_project.yml when missing)',
      'dbt',
    )
    .option(
      '--parquet <location>',
      'read the tables from the Parquet tree the runs export (--out: a folder or s3://BUCKET/PREFIX) instead of the DuckDB file: each table the tree holds files of gets meta.external_location, the others are left out (named in the file and on stderr)',
    )
    .option(
      '--every <duration>',
      'time between scheduled runs; freshness warns when a series table is older than this plus its unit, errors a period later',
      '24h',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  engage-etl dbt --output analytics/engage_etl\n  engage-etl dbt --parquet data/parquet\n  engage-etl dbt --db s3://lake/state/engage.duckdb --parquet s3://lake/warehouse\n\nThen: dbt source freshness, dbt test --select source:engage_etl (docs/analysts.md shows the profile).',
    )
    .action(async (flags: DbtFlags) => {
      const everyHours = parseDuration(flags.every, '--every') / 3_600_000;
      const location = flags.parquet === undefined ? undefined : parquetLocation(flags.parquet);
      const catalog = await withPublishedDatabase(flags.db, (wh) => readWarehouseCatalog(wh));
      const lake = location === undefined ? undefined : await readLake(location, catalog);
      const yaml = dbtSourcesYaml(catalog, { everyHours, ...(lake === undefined ? {} : { parquet: lake }) });
      const outcome = await writeDbtPackage(flags.output, yaml);
      for (const path of outcome.written) process.stdout.write(`wrote ${flags.output}/${path}\n`);
      for (const path of outcome.unchanged) process.stdout.write(`unchanged ${flags.output}/${path}\n`);
      if (lake !== undefined && lake.absent.size > 0) {
        const lines = [...lake.absent].map(([table, reason]) => `  ${table}: ${reason}\n`);
        process.stderr.write(
          `engage-etl: ${lake.absent.size} table(s) have no Parquet file in ${lake.location}, so the sources leave them out (dbt cannot read a location without files); run engage-etl dbt again once an export writes them:\n${lines.join('')}`,
        );
      }
    });
}

/** The Parquet location as parsed from --parquet: an absolute folder that exists, or the s3:// URL. */
function parquetLocation(raw: string): Location {
  const location = parseLocation(raw, '--parquet');
  if (location.kind === 'local' && !existsSync(location.path)) {
    throw new ConfigError(
      '--parquet',
      `${location.path} does not exist; give the folder your runs export to (their --out, data/parquet by default)`,
    );
  }
  return location;
}

/** The lake as the sources name it (a folder's absolute path, or the URL), and the tables its share lacks files of. */
async function readLake(location: Location, catalog: WarehouseCatalog): Promise<ParquetLake> {
  const opened = await openPlace(location, { readOnly: true });
  try {
    const absent = await lakeAbsences(placeOfWorkspace(opened.place, catalog.workspace), catalog.tables);
    const name = location.kind === 's3' ? location.url.replace(/\/+$/, '') : location.path;
    if (catalog.tables.length > 0 && absent.size === catalog.tables.length) {
      const share = catalog.workspace === undefined ? '' : ` in workspace=${catalog.workspace}/`;
      throw new ConfigError(
        '--parquet',
        `${name} holds no Parquet file of any table of this database${share} (no manifests/<table>.json naming one); give the folder or s3:// prefix your runs export to (their --out), after a run that loaded rows`,
      );
    }
    return { location: name, absent };
  } finally {
    await opened.close();
  }
}
