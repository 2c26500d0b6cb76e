// Which tables of the warehouse a Parquet lake holds no file of. dbt-duckdb fails on a source whose glob matches no file
// (`No files found that match the pattern`), in `dbt test` and `dbt source freshness` alike, so the sources over a lake
// name only the tables it holds. A table counts as held when its manifest (the export's own record, written after the
// files) names at least one file that the lake lists: the listing proves the glob matches, the manifest says why not.
import { eachLimited } from '../store/place.js';
import type { Place } from '../store/place.js';
import { inspectManifest, manifestName } from '../export/table-manifest.js';
import type { CatalogTable } from './warehouse-catalog.js';

const READS_IN_FLIGHT = 8;

/**
 * The tables of `tables` that `lake` (the database's share of the lake: its workspace's folders) holds no Parquet file
 * of, each with why, in the order of `tables`.
 */
export async function lakeAbsences(lake: Place, tables: readonly CatalogTable[]): Promise<ReadonlyMap<string, string>> {
  const reasons = new Map<string, string | undefined>();
  await eachLimited(tables, READS_IN_FLIGHT, async (table) => void reasons.set(table.name, await absence(lake, table)));
  return new Map(
    tables.flatMap((t) => {
      const reason = reasons.get(t.name);
      return reason === undefined ? [] : [[t.name, reason] as const];
    }),
  );
}

async function absence(lake: Place, table: CatalogTable): Promise<string | undefined> {
  const reading = await inspectManifest(lake, table.name);
  if (reading.state === 'damaged') return `${reading.reason}; \`engage-etl export\` rewrites it`;
  // What `<table>/**/*.parquet` matches in the share.
  const listed = new Set(
    (await lake.list(`${table.name}/`))
      .map((o) => o.key.slice(table.name.length + 1))
      .filter((path) => path.endsWith('.parquet')),
  );
  const named = reading.state === 'ok' ? reading.manifest.files.map((f) => f.path) : [];
  if (named.some((path) => listed.has(path))) return undefined;
  if (named.length > 0)
    return `${manifestName(table.name)} names files the lake lacks; \`engage-etl export\` rewrites them`;
  if (reading.state === 'ok')
    return table.rows === 0
      ? 'its last export found no rows'
      : 'its last export found no rows; the next export writes the rows loaded since';
  if (listed.size > 0) return 'its files have no manifest yet (an export was interrupted); the next export finishes it';
  return table.rows === 0
    ? 'no rows loaded yet, so never exported'
    : 'rows loaded but not exported to this lake; `engage-etl export` writes them';
}
