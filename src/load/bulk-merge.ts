// Merge of one table's batch inside the caller's transaction: stage in bulk, keep the last of duplicate keys, delete the
// rows a replace scope no longer holds, then write ONLY rows whose data changed, recording their month partitions as dirty.
import { markDirtySql } from './dirty-partitions.js';
import { sqlTimestamp } from './duckdb-values.js';
import { scopeTableSql, type StagedScope, type StagedTable } from './row-package.js';
import { PARTITION_COLUMN, WHOLE_TABLE_PARTITION, ident, sqlString } from './table-definition.js';
import type { ColumnSpec, TableSpec } from './table-definition.js';
import { MONEY } from './table-definition.js';
import { historyMergeSql } from './table-history.js';

/** What a commit did to one table. */
export interface TableChange {
  /** Keys that were not in the table. */
  inserted: number;
  /** Keys whose data changed; their `_run_id` and `_loaded_at` now name this run. */
  updated: number;
  /** Keys re-fetched with identical data: left untouched. */
  unchanged: number;
  /** Rows removed because a replace scope named them and the batch no longer holds them. */
  deleted: number;
}

export interface MergeContext {
  runId: string;
  loadedAt: Date;
  /**
   * Record changed values of complete units in `_etl_restatements` (series tables of a pipeline run).
   * @default undefined (no audit)
   */
  audit?: { stream: string; until: Date };
  /**
   * The run's --until: where a version of a table with `history` starts when the platform gives no edit time.
   * @default loadedAt
   */
  until?: Date;
}

function keyMatch(spec: TableSpec, a: string, b: string): string {
  return spec.key.map((k) => `${a}.${ident(k)} = ${b}.${ident(k)}`).join(' AND ');
}

/** SQL of the partition month of a row read through `alias`, from the stored or staged data column. */
function monthOf(spec: TableSpec, alias: string): string {
  return spec.partitionSource
    ? `strftime(${alias}.${ident(spec.partitionSource)}, '%Y-%m')`
    : `'${WHOLE_TABLE_PARTITION}'`;
}

/** The temp table every merge of a commit adds its counts to (one row per table), read once at the end of the commit. */
export const MERGE_COUNTS_TABLE = '_etl_merge_counts';
export const MERGE_COUNTS_DDL = `CREATE OR REPLACE TEMP TABLE "${MERGE_COUNTS_TABLE}" ("table_name" VARCHAR, "total" BIGINT, "inserted" BIGINT, "updated" BIGINT, "deleted" BIGINT, "compared" BIGINT, "searched" BIGINT)`;

/**
 * Per series table, object and month, time ranges that hold every stored row (one table per series table in this
 * schema; sql/004-bookkeeping.sql): a fetched row whose object has no range in its month that holds its time cannot
 * match a stored key, and is inserted without the change-detecting join. That join reads the stored table whole (DuckDB
 * has no index to find a key by; its zone maps prune nothing when a commit's objects are not neighbours in the table),
 * so with it every commit of a first backfill would cost time in proportion to what earlier commits had stored. A merge appends
 * the range of the rows it inserted, per object and month (no update, no scan); deletes leave ranges that hold no row,
 * which only sends rows to the join. Each commit stamps the tables it merged ({@link EXTENTS_STAMPS}). A process trusts a
 * table's ranges before its first merge into it when the stamp still holds, and otherwise replaces them with those of
 * the table's rows ({@link Extents.rebuild}): rows another program or an older version wrote are never missed, and a
 * nightly does not read every stored row again to find that nothing else wrote them.
 */
export const EXTENTS_SCHEMA = '_etl_extents';

/**
 * Per table with extents, what its last merge left: the extents' format, the table's rows and its ranges' rows
 * (sql/004-bookkeeping.sql). Both counts are DuckDB's own totals, read without a scan, so checking a stamp costs nothing
 * at any size. A table whose rows another program added or removed, or whose ranges it emptied, no longer matches its
 * stamp and is rebuilt; so is every table of a database written before the stamps, or by another format.
 */
export const EXTENTS_STAMPS = '_etl_extents_stamps';

/** The ranges' format: raise it when what a range holds changes, and every table's ranges are rebuilt once. */
export const EXTENTS_FORMAT = 1;

/** How a table's extents are kept: by object, month and time; undefined when its keys are not time-bound. */
export interface Extents {
  table: string;
  /** Its extents table, quoted. */
  relation: string;
  /** The columns a row's object and time are read from. */
  columns: string[];
  /** SQL of a row's object read through alias `a` (the first key column that is not the time, as text; '' if none). */
  object(a: string): string;
  /** SQL of a row's time read through alias `a`, as a TIMESTAMP. */
  time(a: string): string;
  /** SQL of a row's month ('YYYY-MM') read through alias `a`. */
  month(a: string): string;
  /** The statement that replaces the table's extents with those of its stored rows. */
  rebuild: string;
}

export function tableExtents(spec: TableSpec): Extents | undefined {
  const time = spec.partitionSource;
  if (!time || !spec.key.includes(time)) return undefined;
  const objectCol = spec.key.find((k) => k !== time);
  const object = (a: string) => (objectCol ? `CAST(${a}.${ident(objectCol)} AS VARCHAR)` : `''`);
  const at = (a: string) => `CAST(${a}.${ident(time)} AS TIMESTAMP)`;
  const month = (a: string) => `strftime(${a}.${ident(time)}, '%Y-%m')`;
  const relation = `${ident(EXTENTS_SCHEMA)}.${ident(spec.name)}`;
  return {
    table: spec.name,
    relation,
    columns: objectCol ? [objectCol, time] : [time],
    object,
    time: at,
    month,
    rebuild: `CREATE OR REPLACE TABLE ${relation} AS SELECT ${object('t')} AS "object_key", ${month('t')} AS "month", min(${at('t')}) AS "first_time",
       max(${at('t')}) AS "last_time" FROM ${ident(spec.name)} t GROUP BY ALL`,
  };
}

/** The statements that record `extents`' stamp after a merge into its table (run after every statement that writes it). */
export function stampExtentsSql(extents: Extents): string {
  const table = sqlString(extents.table);
  return `DELETE FROM "${EXTENTS_STAMPS}" WHERE "table_name" = ${table};
INSERT INTO "${EXTENTS_STAMPS}" SELECT ${table}, ${EXTENTS_FORMAT}, (SELECT count(*) FROM ${ident(extents.table)}),
  (SELECT count(*) FROM ${extents.relation})`;
}

/** The statement that forgets `table`'s stamp: its next merge rebuilds its ranges from its rows. */
export function forgetExtentsStampSql(table: string): string {
  return `DELETE FROM "${EXTENTS_STAMPS}" WHERE "table_name" = ${sqlString(table)}`;
}

/** The statements that drop `extents` and their stamp (the table was emptied: its next merge builds them again). */
export function dropExtentsSql(extents: Extents): string {
  return `DROP TABLE IF EXISTS ${extents.relation};
${forgetExtentsStampSql(extents.table)}`;
}

/**
 * Which of `tables` have ranges whose stamp still holds: two queries, the first finding the stamps of this format whose
 * ranges table exists (another program may have dropped it), the second comparing their counts.
 */
export async function stampedExtents(
  read: (sql: string) => Promise<unknown[][]>,
  tables: readonly string[],
): Promise<Set<string>> {
  if (tables.length === 0) return new Set();
  const stamped = await read(
    `SELECT s."table_name", s."table_rows", s."extent_rows" FROM "${EXTENTS_STAMPS}" s
     JOIN duckdb_tables() d ON d."schema_name" = ${sqlString(EXTENTS_SCHEMA)} AND d."table_name" = s."table_name"
     WHERE s."format" = ${EXTENTS_FORMAT} AND s."table_name" IN (${tables.map(sqlString).join(', ')})`,
  );
  if (stamped.length === 0) return new Set();
  const checks = stamped.map(
    ([table, rows, ranges]) =>
      `SELECT ${sqlString(String(table))} WHERE (SELECT count(*) FROM ${ident(String(table))}) = ${String(rows)}
       AND (SELECT count(*) FROM ${ident(EXTENTS_SCHEMA)}.${ident(String(table))}) = ${String(ranges)}`,
  );
  return new Set((await read(checks.join(' UNION ALL '))).map((row) => String(row[0])));
}

/** SQL true when the row read through `a` lies in a range of its object and month: only then may a stored row share its key. */
function inExtent(extents: Extents, a: string): string {
  return `EXISTS (SELECT 1 FROM ${extents.relation} e WHERE e."object_key" = ${extents.object(a)}
    AND e."month" = ${extents.month(a)} AND ${extents.time(a)} BETWEEN e."first_time" AND e."last_time")`;
}

/** The statement that adds the ranges of the rows of `rows` (a relation aliased `x`), per object and month. */
function widenExtentsSql(extents: Extents, rows: string): string {
  return `INSERT INTO ${extents.relation} SELECT ${extents.object('x')}, ${extents.month('x')}, min(${extents.time('x')}), max(${extents.time('x')})
     FROM ${rows} GROUP BY ALL`;
}

/** One table's part of a commit: what to load besides the batch's staging table, then its merge statements. */
export interface PreparedMerge {
  table: string;
  rows: number;
  /** The statements that load its replace scopes from the package, run with the staging table's. */
  load: string[];
  /** The comparing merge: de-duplicate, find the changed rows, delete and insert them, apply the scopes. */
  sql: string;
  /**
   * Where the table has extents and no history: what the commit asks first and the merge it may take instead.
   * `before` drops the scopes outside every extent; `select` is one row (`table_name`, `repeated` keys, rows that
   * `maybe` meet a stored key, `scopes` left). When all three are 0 no stored row can be touched, and `append` writes
   * the rows straight (one insert, their partitions and their extents) instead of `sql`.
   */
  probe?: { before: string[]; select: string; append: string };
}

/** Whether a probe's row says the table's rows can only be appended (see PreparedMerge.probe). */
export function appendOnly(row: readonly unknown[]): boolean {
  const [, repeated, maybe, scopes] = row;
  return Number(repeated) === 0 && Number(maybe) === 0 && Number(scopes) === 0;
}

/**
 * Write the statements that merge one table's rows, staged in the batch's staging table `stagingTable` (see
 * row-package.ts), and apply its replace scopes `scoped` (the package's file of them: every stored row that matches a
 * scope and is absent from the rows is deleted), for the caller to run inside its transaction after its `load`. Rows
 * later in the part win over earlier rows with the same key. The statements add the table's {@link TableChange} to
 * {@link MERGE_COUNTS_TABLE}.
 *
 * Why one script, not a statement at a time: the commit runs while the main thread parses the next answers, and each
 * awaited statement waits for a turn of that busy event loop, far longer than DuckDB works on it; a script is one
 * round trip whatever the table count.
 *
 * What the transaction holds until it ends: DuckDB frees a dropped temp table only at the commit, at least one 256 KiB
 * block per column once it holds a few thousand rows. So the changed rows are kept as their keys and partitions
 * (`_chg`, narrow), and the inserted rows are read again from the staging table through its key join; a full copy of
 * every changed row per table cost as much as the staging of the whole batch again.
 */
export function prepareMerge(
  staged: StagedTable,
  stagingTable: string,
  scoped: StagedScope | undefined,
  ctx: MergeContext,
): PreparedMerge {
  const spec = staged.spec;
  const table = ident(spec.name);
  const fresh = ident(`_new_${spec.name}`);
  const scope = ident(`_scope_${spec.name}`);
  const del = ident(`_del_${spec.name}`);
  const chg = ident(`_chg_${spec.name}`);
  const dataCols = spec.columns.map((col) => ident(col.name));
  const nameParam = sqlString(spec.name);

  const load = scoped ? [scopeTableSql(`_scope_${spec.name}`, scoped)] : [];

  const sql: string[] = [];
  // Last fetched wins: MERGE, ON CONFLICT and our own join would otherwise keep an arbitrary one of duplicate keys. A
  // part without duplicate keys (the usual one) is read through a view: de-duplicating it cost a sort of every wide row.
  const part = `SELECT ${staged.select.join(', ')}, "_seq" FROM ${ident(stagingTable)} WHERE "_tbl" = ${staged.index}`;
  const freshKind = staged.duplicates ? 'TABLE' : 'VIEW';
  sql.push(
    staged.duplicates
      ? `CREATE OR REPLACE TEMP TABLE ${fresh} AS SELECT * EXCLUDE ("_seq") FROM (${part})
         QUALIFY row_number() OVER (PARTITION BY ${spec.key.map(ident).join(', ')} ORDER BY "_seq" DESC) = 1`
      : `CREATE OR REPLACE TEMP VIEW ${fresh} AS SELECT * EXCLUDE ("_seq") FROM (${part})`,
  );

  const extents = tableExtents(spec);
  // Such a table is probed before it merges (PreparedMerge.probe), and may be appended instead.
  const probed = extents !== undefined && !spec.history;
  // A scope that names its rows' object and time can hold stored rows only inside a range of that object and month:
  // the others are dropped first (by the probe), and when none is left the delete's build side is empty and DuckDB skips
  // the scan of the stored table (a scope per day of a first backfill would otherwise read the whole table at every commit).
  const scopeFilter =
    scoped && extents?.columns.every((c) => scoped.columns.includes(c))
      ? [`DELETE FROM ${scope} s WHERE NOT ${inExtent(extents, 's')}`]
      : [];
  if (scoped) {
    const inScope = scoped.columns.map((col) => `s.${ident(col)} IS NOT DISTINCT FROM t.${ident(col)}`).join(' AND ');
    if (!probed) sql.push(...scopeFilter);
    sql.push(
      `CREATE OR REPLACE TEMP TABLE ${del} AS SELECT ${spec.key.map((k) => `t.${ident(k)}`).join(', ')}, ${monthOf(spec, 't')} AS "partition"
       FROM ${table} t
       WHERE EXISTS (SELECT 1 FROM ${scope} s WHERE ${inScope})
         AND NOT EXISTS (SELECT 1 FROM ${fresh} n WHERE ${keyMatch(spec, 'n', 't')})`,
      markDirtySql(nameParam, `SELECT "partition" FROM ${del}`),
      `DELETE FROM ${table} t USING ${del} x WHERE ${keyMatch(spec, 't', 'x')}`,
    );
  }

  const compared = spec.columns.filter((col) => !spec.key.includes(col.name) && !col.keepOnUpdate);
  const kept = spec.columns.filter((col) => col.keepOnUpdate);
  const differs =
    compared.length > 0
      ? compared.map((col) => `n.${ident(col.name)} IS DISTINCT FROM t.${ident(col.name)}`).join(' OR ')
      : 'false';
  const firstKey = ident(spec.key[0]!);
  const oldMonth = spec.partitionSource ? `t.${ident(PARTITION_COLUMN)}` : `'${WHOLE_TABLE_PARTITION}'`;
  const keys = spec.key.map((k) => `n.${ident(k)}`).join(', ');
  // The rows that may match a stored key: all of them, or with extents those inside a range of their object and month,
  // marked in one pass over the extents (`probe`); the others go straight to the insert. When none may, the join's
  // build side is empty and DuckDB skips the scan of the stored table.
  const probe = ident(`_probe_${spec.name}`);
  if (extents) {
    sql.push(
      `CREATE OR REPLACE TEMP TABLE ${probe} AS SELECT ${keys}, ${inExtent(extents, 'n')} AS "_maybe" FROM ${fresh} n`,
    );
  }
  const fromProbe = (maybe: boolean) =>
    `(SELECT n.* FROM ${fresh} n SEMI JOIN ${probe} p ON ${keyMatch(spec, 'n', 'p')} AND ${maybe ? '' : 'NOT '}p."_maybe")`;
  // The changed keys, and the values a keepOnUpdate column keeps (the stored one, else the new one).
  sql.push(
    `CREATE OR REPLACE TEMP TABLE ${chg} AS
     SELECT ${keys}, (t.${firstKey} IS NULL) AS "_ins", ${monthOf(spec, 'n')} AS "_new_partition",
            CASE WHEN t.${firstKey} IS NULL THEN NULL ELSE ${oldMonth} END AS "_old_partition"
            ${kept.map((col) => `, COALESCE(t.${ident(col.name)}, n.${ident(col.name)}) AS ${ident(`_kept_${col.name}`)}`).join('')}
     FROM ${extents ? fromProbe(true) : fresh} n LEFT JOIN ${table} t ON ${keyMatch(spec, 'n', 't')}
     WHERE t.${firstKey} IS NULL OR ${differs}` +
      (extents
        ? `
     UNION ALL
     SELECT ${keys}, true, ${monthOf(spec, 'n')}, NULL${kept.map((col) => `, n.${ident(col.name)}`).join('')}
     FROM ${fromProbe(false)} n`
        : ''),
    markDirtySql(
      nameParam,
      `SELECT "_new_partition" AS "partition" FROM ${chg} UNION SELECT "_old_partition" FROM ${chg}`,
    ),
  );
  // The changed rows as they were fetched, with `_ins`.
  const changedRows = `(SELECT n.*, x."_ins"${kept.map((col) => `, x.${ident(`_kept_${col.name}`)}`).join('')} FROM ${fresh} n JOIN ${chg} x ON ${keyMatch(spec, 'n', 'x')})`;
  if (ctx.audit) {
    const audit = restatementsSql(spec, changedRows, compared, ctx.runId, ctx.audit);
    if (audit) sql.push(audit);
  }
  const select = spec.columns.map((col) =>
    col.keepOnUpdate ? `x.${ident(`_kept_${col.name}`)}` : `x.${ident(col.name)}`,
  );
  // Measured on 1M rows: without a PRIMARY KEY, DELETE + INSERT is as fast as MERGE INTO and 2-4 times faster than
  // MERGE, ON CONFLICT or DELETE + INSERT on a table with a PRIMARY KEY (see sql/004-bookkeeping.sql).
  sql.push(
    `DELETE FROM ${table} t USING ${chg} x WHERE NOT x."_ins" AND ${keyMatch(spec, 't', 'x')}`,
    `INSERT INTO ${table} (${dataCols.join(', ')}, "_loaded_at", "_run_id") SELECT ${select.join(', ')}, ${sqlTimestamp(ctx.loadedAt, 'batch loadedAt')}, ${sqlString(ctx.runId)} FROM ${changedRows} x`,
    `INSERT INTO "${MERGE_COUNTS_TABLE}" SELECT ${nameParam}, ${staged.duplicates ? `(SELECT count(*) FROM ${fresh})` : `${staged.rows}`},
       (SELECT count(*) FROM ${chg} WHERE "_ins"), (SELECT count(*) FROM ${chg} WHERE NOT "_ins"), ${scoped ? `(SELECT count(*) FROM ${del})` : '0'},
       ${extents ? `(SELECT count(*) FROM ${probe} WHERE "_maybe")` : staged.duplicates ? `(SELECT count(*) FROM ${fresh})` : `${staged.rows}`},
       ${scoped ? `(SELECT count(*) FROM ${scope})` : '0'}`,
    ...(extents ? [widenExtentsSql(extents, `(SELECT * FROM ${chg} WHERE "_ins") x`)] : []),
    ...(spec.history
      ? historyMergeSql(
          spec,
          `SELECT ${spec.key.map(ident).join(', ')} FROM ${chg}${scoped ? ` UNION ALL SELECT ${spec.key.map(ident).join(', ')} FROM ${del}` : ''}`,
          {
            until: sqlTimestamp(ctx.until ?? ctx.loadedAt, 'run until'),
            loadedAt: sqlTimestamp(ctx.loadedAt, 'batch loadedAt'),
            runId: sqlString(ctx.runId),
            countsTable: MERGE_COUNTS_TABLE,
          },
        )
      : []),
    `DROP ${freshKind} IF EXISTS ${fresh}`,
    ...[...(scoped ? [scope, del] : []), chg, ...(extents ? [probe] : [])].map(
      (temp) => `DROP TABLE IF EXISTS ${temp}`,
    ),
  );
  const merge = { table: spec.name, rows: staged.rows, load, sql: sql.join(';\n') };
  if (!probed) return merge;
  // Rows that cannot meet a stored key are appended as they are: no de-duplication, no join, no delete.
  const rows = `(${part}) n`;
  const question = `SELECT ${nameParam} AS "table_name",
       (SELECT count(*) FROM (SELECT 1 FROM ${rows} GROUP BY ${keys} HAVING count(*) > 1)) AS "repeated",
       (SELECT count(*) FROM ${rows} WHERE ${inExtent(extents, 'n')}) AS "maybe",
       ${scoped ? `(SELECT count(*) FROM ${scope})` : '0'} AS "scopes"`;
  const append = [
    `INSERT INTO ${table} (${dataCols.join(', ')}, "_loaded_at", "_run_id") SELECT ${dataCols.map((c) => `n.${c}`).join(', ')}, ${sqlTimestamp(ctx.loadedAt, 'batch loadedAt')}, ${sqlString(ctx.runId)} FROM ${rows}`,
    markDirtySql(nameParam, `SELECT ${monthOf(spec, 'n')} AS "partition" FROM ${rows}`),
    `INSERT INTO "${MERGE_COUNTS_TABLE}" SELECT ${nameParam}, ${staged.rows}, ${staged.rows}, 0, 0, 0, 0`,
    widenExtentsSql(extents, `(${part}) x`),
    ...(scoped ? [`DROP TABLE IF EXISTS ${scope}`] : []),
  ];
  return { ...merge, probe: { before: scopeFilter, select: question, append: append.join(';\n') } };
}

/** A commit's {@link TableChange}s, from the rows its merges added to {@link MERGE_COUNTS_TABLE}. */
export function tableChanges(rows: readonly (readonly unknown[])[]): Map<string, TableChange> {
  const changes = new Map<string, TableChange>();
  for (const [table, total, inserted, updated, deleted] of rows) {
    const n = (v: unknown): number => Number(v ?? 0);
    changes.set(String(table), {
      inserted: n(inserted),
      updated: n(updated),
      unchanged: n(total) - n(inserted) - n(updated),
      deleted: n(deleted),
    });
  }
  return changes;
}

/** How many fetched rows a commit's merges compared with stored rows (the rest could not match a stored key). */
export function comparedRows(rows: readonly (readonly unknown[])[]): number {
  return rows.reduce((sum, row) => sum + Number(row[5] ?? 0), 0);
}

/** How many replace scopes a commit's merges searched the stored rows for (the rest were outside every extent). */
export function searchedScopes(rows: readonly (readonly unknown[])[]): number {
  return rows.reduce((sum, row) => sum + Number(row[6] ?? 0), 0);
}

const NUMERIC = new Set<string>(['BIGINT', 'INTEGER', 'DOUBLE', MONEY]);

/**
 * Before the updated rows replace the stored ones: every numeric value that changed, of a unit that was already complete
 * at the --until of the run that stored it (a unit still in progress then was filling in, not restated), into
 * `_etl_restatements`. The unit is the row's `unit` column when the table has one, else a day.
 */
function restatementsSql(
  spec: TableSpec,
  chg: string,
  compared: readonly ColumnSpec[],
  runId: string,
  audit: { stream: string; until: Date },
): string | undefined {
  const time = spec.partitionSource;
  const values = compared.filter((col) => NUMERIC.has(col.type));
  const objects = compared.filter((col) => col.type === 'JSON');
  if (!time || values.length + objects.length === 0) return undefined;
  const keyCols = spec.key.filter((k) => k !== time);
  const keyJson =
    keyCols.length > 0 ? `json_object(${keyCols.map((k) => `'${k}', x.${ident(k)}`).join(', ')})` : `'{}'::JSON`;
  const unitLength = spec.columns.some((col) => col.name === 'unit')
    ? `CASE WHEN x."unit" = 'hour' THEN INTERVAL 1 HOUR ELSE INTERVAL 1 DAY END`
    : 'INTERVAL 1 DAY';
  const start = `CAST(x.${ident(time)} AS TIMESTAMP)`;
  // One join of the changed rows with the stored ones, its changed values unnested to a row each: a join per column
  // (a UNION ALL of them) held as many hash tables at once and ran out of the writer's memory on wide tables. Only the
  // columns the audit row needs ride along, and unchanged values are dropped before the unnest: a row of a wide table
  // (campaign_message_series, 40 counts) times its every column, all columns wide, also ran out of it.
  const changes = values.map(
    (col) =>
      `{'column_name': '${col.name}', 'old_value': CAST(t.${ident(col.name)} AS DOUBLE), 'new_value': CAST(x.${ident(col.name)} AS DOUBLE), 'changed': x.${ident(col.name)} IS DISTINCT FROM t.${ident(col.name)}}`,
  );
  // A JSON object column (`extra_stats`: per-button clicks, fields without a column) is audited field by field, as
  // `extra_stats.<field>`; a value that is not a number (a nested object) is recorded as changed with NULL values.
  const asMap = (v: string) =>
    `(CASE WHEN json_type(${v}) = 'OBJECT' THEN CAST(${v} AS MAP(VARCHAR, JSON)) ELSE CAST(MAP {} AS MAP(VARCHAR, JSON)) END)`;
  const fieldChanges = objects.map((col) => {
    const [old, now] = [asMap(`t.${ident(col.name)}`), asMap(`x.${ident(col.name)}`)];
    return `list_transform(list_distinct(list_concat(map_keys(${old}), map_keys(${now}))), k -> {'column_name': '${col.name}.' || k,
      'old_value': TRY_CAST(map_extract(${old}, k)[1] AS DOUBLE), 'new_value': TRY_CAST(map_extract(${now}, k)[1] AS DOUBLE),
      'changed': map_extract(${old}, k)[1] IS DISTINCT FROM map_extract(${now}, k)[1]})`;
  });
  const lists = [...(changes.length > 0 ? [`[${changes.join(', ')}]`] : []), ...fieldChanges];
  const allChanges = lists.length === 1 ? lists[0]! : `flatten([${lists.join(', ')}])`;
  const carried = [
    ...new Set([...spec.key, time, ...(spec.columns.some((col) => col.name === 'unit') ? ['unit'] : [])]),
  ];
  const until = sqlTimestamp(audit.until, 'run until');
  return `INSERT INTO "_etl_restatements"
     SELECT ${sqlString(audit.stream)}, ${sqlString(spec.name)}, ${keyJson}, x."c"."column_name", ${start}, x."c"."old_value", x."c"."new_value",
            CAST(floor(date_diff('second', ${start}, ${until}) / 86400) AS INTEGER), ${sqlString(runId)}
     FROM (
       SELECT ${carried.map((c) => `x.${ident(c)}`).join(', ')}, t."_run_id" AS "_old_run",
              unnest(list_filter(${allChanges}, c -> c."changed")) AS "c"
       FROM ${chg} x JOIN ${ident(spec.name)} t ON ${keyMatch(spec, 't', 'x')}
       WHERE NOT x."_ins"
     ) x LEFT JOIN "_etl_runs" r ON r."run_id" = x."_old_run"
     WHERE ${start} + ${unitLength} <= r."until" OR r."until" IS NULL`;
}
