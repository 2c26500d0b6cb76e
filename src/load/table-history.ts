// `<table>_history` of a table declared with `history`: every version of each row with the interval it was current in,
// so a day's series row can be joined to the names of that day. The merge writes it in the commit's transaction; an
// older database that has the table but not its history gets one version per stored row when it is opened.
import type { DuckDBConnection } from '@duckdb/node-api';
import { markDirtySql } from './dirty-partitions.js';
import { WHOLE_TABLE_PARTITION, col, ident, sqlString } from './table-definition.js';
import type { ColumnSpec, TableSpec } from './table-definition.js';

/** The columns a history table adds after its table's data columns: a version is current from `_valid_from` (closed) to `_valid_to` (open; NULL while current). */
export const VALID_FROM = '_valid_from';
export const VALID_TO = '_valid_to';

/**
 * The column of discovered tables (src/streams/discovered-columns.ts) that is set when the workspace's list stopped
 * showing the object: its row stays in the table, but its history has no current version from then on.
 */
const REMOVED_AT = '_removed_at';

/** What a table's name takes to name its history table. */
export const HISTORY_SUFFIX = '_history';

export function historyTableName(name: string): string {
  return `${name}${HISTORY_SUFFIX}`;
}

/** The declaration of the history table of `spec`: its columns, then the interval; one row per key and `_valid_from`. */
export function historySpec(spec: TableSpec): TableSpec {
  return {
    name: historyTableName(spec.name),
    description: `Every version of the rows of ${spec.name}, current from _valid_from until _valid_to (NULL while current; a removed object has none current).`,
    columns: [...spec.columns, col(VALID_FROM, 'TIMESTAMP'), col(VALID_TO, 'TIMESTAMP')],
    key: [...spec.key, VALID_FROM],
  };
}

/**
 * The columns whose change makes a new version: the data columns. The `_` columns are bookkeeping — the list version
 * moves with every edit, also those that change nothing stored, and a removal closes the version rather than starting one.
 */
function versionedColumns(spec: TableSpec): ColumnSpec[] {
  return spec.columns.filter((c) => !spec.key.includes(c.name) && !c.name.startsWith('_'));
}

function keyMatch(spec: TableSpec, a: string, b: string): string {
  return spec.key.map((k) => `${a}.${ident(k)} = ${b}.${ident(k)}`).join(' AND ');
}

/** What the merge of a commit passes: SQL literals of the run's --until, the load time and the run id. */
export interface HistoryStamp {
  until: string;
  loadedAt: string;
  runId: string;
  /**
   * The commit's counts table (bulk-merge.ts, `_etl_merge_counts`): the history table's row is added to it, versions
   * opened as `inserted` and versions closed as `updated`. @default none (nothing counted)
   */
  countsTable?: string;
}

/**
 * The statements that bring the history of `spec` up to date with its table for the keys of `touched` (a query of the
 * key columns: the keys the merge inserted, updated or deleted). A key whose row is gone or removed has its current
 * version closed; a key whose row differs from its current version (or has none) gets a new version, and the one it
 * replaces ends where it starts, so intervals never overlap and each object has at most one current version.
 *
 * When a version starts: the declaration's `validFrom` column (the platform's edit time), else the run's --until. A
 * start that does not lie after every earlier version of the key (an edit time that did not move while a listed field
 * did, a clock that went back) is moved to the run's --until, or just past the latest version when even that is not
 * later: the key (`key`, `_valid_from`) stays unique and the versions stay in order.
 */
export function historyMergeSql(spec: TableSpec, touched: string, stamp: HistoryStamp): string[] {
  const table = ident(spec.name);
  const history = ident(historyTableName(spec.name));
  const versions = ident(`_hv_${spec.name}`);
  const keys = spec.key.map(ident);
  const first = keys[0]!;
  const removable = spec.columns.some((c) => c.name === REMOVED_AT);
  const live = `t.${first} IS NOT NULL${removable ? ` AND t.${ident(REMOVED_AT)} IS NULL` : ''}`;
  const differs = versionedColumns(spec).map((c) => `t.${ident(c.name)} IS DISTINCT FROM c.${ident(c.name)}`);
  const candidate = spec.history?.validFrom
    ? `COALESCE(CAST(t.${ident(spec.history.validFrom)} AS TIMESTAMP), ${stamp.until})`
    : stamp.until;
  const [from, to] = [ident(VALID_FROM), ident(VALID_TO)];
  const closeAt = removable ? `COALESCE(t.${ident(REMOVED_AT)}, ${stamp.until})` : stamp.until;
  const data = spec.columns.map((c) => ident(c.name));
  return [
    `CREATE OR REPLACE TEMP TABLE ${versions} AS
     SELECT ${keys.map((k) => `k.${k}`).join(', ')}, (${live}) AS "_live", (c.${first} IS NOT NULL) AS "_open",
            (c.${first} IS NULL${differs.length > 0 ? ` OR ${differs.join(' OR ')}` : ''}) AS "_changed",
            CASE WHEN l."_last_from" IS NULL OR (${candidate} > l."_last_from" AND ${candidate} >= COALESCE(l."_last_to", l."_last_from")) THEN ${candidate}
                 ELSE greatest(${stamp.until}, COALESCE(l."_last_to", l."_last_from"), l."_last_from" + INTERVAL 1 MICROSECOND) END AS "_from",
            greatest(${closeAt}, c.${from}) AS "_close"
     FROM (SELECT DISTINCT * FROM (${touched})) k
     LEFT JOIN ${table} t ON ${keyMatch(spec, 'k', 't')}
     LEFT JOIN ${history} c ON ${keyMatch(spec, 'k', 'c')} AND c.${to} IS NULL
     LEFT JOIN (SELECT ${keys.join(', ')}, max(${from}) AS "_last_from", max(${to}) AS "_last_to" FROM ${history} GROUP BY ALL) l ON ${keyMatch(spec, 'k', 'l')}`,
    `UPDATE ${history} h SET ${to} = CASE WHEN v."_live" THEN v."_from" ELSE v."_close" END
     FROM ${versions} v WHERE ${keyMatch(spec, 'h', 'v')} AND h.${to} IS NULL AND v."_open" AND (NOT v."_live" OR v."_changed")`,
    `INSERT INTO ${history} (${data.join(', ')}, ${from}, ${to}, "_loaded_at", "_run_id")
     SELECT ${data.map((c) => `t.${c}`).join(', ')}, v."_from", NULL, ${stamp.loadedAt}, ${stamp.runId}
     FROM ${versions} v JOIN ${table} t ON ${keyMatch(spec, 'v', 't')} WHERE v."_live" AND v."_changed"`,
    markDirtySql(
      sqlString(historyTableName(spec.name)),
      `SELECT '${WHOLE_TABLE_PARTITION}' AS "partition" FROM ${versions} WHERE ("_live" AND "_changed") OR (NOT "_live" AND "_open") LIMIT 1`,
    ),
    // Opened: a new version per live changed key. Closed: the current version of a key that changed or is gone.
    ...(stamp.countsTable
      ? [
          `INSERT INTO ${ident(stamp.countsTable)} SELECT ${sqlString(historyTableName(spec.name))}, "opened" + "closed", "opened", "closed", 0, 0, 0
          FROM (SELECT count(*) FILTER (WHERE "_live" AND "_changed") AS "opened", count(*) FILTER (WHERE "_open" AND (NOT "_live" OR "_changed")) AS "closed" FROM ${versions})`,
        ]
      : []),
    `DROP TABLE IF EXISTS ${versions}`,
  ];
}

/**
 * Gives the history of `spec`, created just now on a database whose table already holds rows, one version per stored
 * row: from the row's edit time (`validFrom`), else the --until of the run that wrote it, else its load time; a removed
 * row's version is closed at its removal. Runs in one transaction with the partition marked for the next export.
 */
export async function seedHistory(conn: DuckDBConnection, spec: TableSpec): Promise<void> {
  const history = ident(historyTableName(spec.name));
  const removable = spec.columns.some((c) => c.name === REMOVED_AT);
  const start = `COALESCE(${spec.history?.validFrom ? `CAST(t.${ident(spec.history.validFrom)} AS TIMESTAMP), ` : ''}r."until", t."_loaded_at")`;
  const end = removable
    ? `CASE WHEN t.${ident(REMOVED_AT)} IS NOT NULL THEN greatest(t.${ident(REMOVED_AT)}, ${start}) END`
    : 'NULL';
  const data = spec.columns.map((c) => ident(c.name));
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(
      `INSERT INTO ${history} (${data.join(', ')}, ${ident(VALID_FROM)}, ${ident(VALID_TO)}, "_loaded_at", "_run_id")
       SELECT ${data.map((c) => `t.${c}`).join(', ')}, ${start}, ${end}, t."_loaded_at", t."_run_id"
       FROM ${ident(spec.name)} t LEFT JOIN "_etl_runs" r ON r."run_id" = t."_run_id"`,
    );
    await conn.run(
      markDirtySql(
        sqlString(historyTableName(spec.name)),
        `SELECT '${WHOLE_TABLE_PARTITION}' AS "partition" FROM ${history} LIMIT 1`,
      ),
    );
    await conn.run('COMMIT');
  } catch (err) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
