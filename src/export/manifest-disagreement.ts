// Where a table's manifest and the database it was exported from disagree on the rows of a partition, whatever the
// reason: an export of another database, a manifest edited or restored from a backup, a publish that lost files. The
// export rewrites those partitions from DuckDB instead of trusting a lake that no longer says what the database holds.
import type { Warehouse } from '../load/warehouse.js';
import { WHOLE_TABLE_PARTITION, ident } from '../load/table-specs.js';
import type { TableSpec } from '../load/table-specs.js';
import { yearFolder } from './parquet-layout.js';
import type { TableManifest } from './table-manifest.js';
import { manifestName } from './table-manifest.js';

/** Rows per partition (`YYYY`, or '' for a single-file table) as the export would write them. */
async function databaseRows(wh: Warehouse, spec: TableSpec): Promise<Map<string, number>> {
  const source = spec.partitionSource ? ident(spec.partitionSource) : undefined;
  const rows = source
    ? await wh.query(`SELECT strftime(${source}, '%Y') AS p, count(*) AS n FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL GROUP BY 1`)
    : await wh.query(`SELECT '${WHOLE_TABLE_PARTITION}' AS p, count(*) AS n FROM ${ident(spec.name)}`);
  return new Map(rows.filter((r) => Number(r['n']) > 0).map((r) => [String(r['p']), Number(r['n'])]));
}

/**
 * The partitions whose rows in `manifest` differ from the database's, each with the phrase the run's repair warning
 * shows; partitions in `skip` (about to be rewritten anyway: dirty ones) are not compared.
 */
export async function partitionsDisagreeing(wh: Warehouse, spec: TableSpec, manifest: TableManifest, skip: ReadonlySet<string>): Promise<Map<string, string>> {
  const named = new Map<string, number>();
  for (const f of manifest.files) {
    const partition = f.partition ?? WHOLE_TABLE_PARTITION;
    named.set(partition, (named.get(partition) ?? 0) + f.rows);
  }
  const held = await databaseRows(wh, spec);
  const out = new Map<string, string>();
  for (const partition of new Set([...named.keys(), ...held.keys()])) {
    if (skip.has(partition)) continue;
    const listed = named.get(partition) ?? 0;
    const stored = held.get(partition) ?? 0;
    if (listed === stored) continue;
    const where = spec.partitionSource ? ` in ${yearFolder(partition)}` : '';
    out.set(partition, `${manifestName(spec.name)} counts ${listed} rows${where}, the database holds ${stored}`);
  }
  return out;
}
