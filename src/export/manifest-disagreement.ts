// Where a table's manifest and the database it was exported from disagree on the rows of a partition, whatever the
// reason: an export of another database, a manifest edited or restored from a backup, a publish that lost files. The
// export rewrites those partitions from DuckDB instead of trusting a lake that no longer says what the database holds.
import type { Warehouse } from '../load/warehouse.js';
import { PartitionBook } from '../load/partition-book.js';
import { WHOLE_TABLE_PARTITION } from '../streams/table-specs.js';
import type { TableSpec } from '../streams/table-specs.js';
import { yearFolder } from './parquet-layout.js';
import type { TableManifest } from './table-manifest.js';
import { manifestName } from './table-manifest.js';

/**
 * The partitions whose rows in `manifest` differ from the database's, each with the phrase the run's repair warning
 * shows; partitions in `skip` (about to be rewritten anyway: dirty ones) are not compared.
 */
export async function partitionsDisagreeing(
  wh: Warehouse,
  spec: TableSpec,
  manifest: TableManifest,
  skip: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const named = new Map<string, number>();
  for (const f of manifest.files) {
    const partition = f.partition ?? WHOLE_TABLE_PARTITION;
    named.set(partition, (named.get(partition) ?? 0) + f.rows);
  }
  const held = await new PartitionBook(wh).rowsByPartition(spec);
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
