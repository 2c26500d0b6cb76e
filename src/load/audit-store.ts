// The audit tables of sql/005-audit.sql: reconciliation results (`_etl_reconciliation`), restated values
// (`_etl_restatements`, written by the merge) and the look-back of each run (`_etl_lookback`) — what the run records
// and what the planner and `status` read back.
import { ident } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

/** What these functions read and write through: the Warehouse (its query). */
type Db = Pick<Warehouse, 'query'>;

/** 'unavailable': the checking endpoint refused or failed; the check is an audit, so the data stays and the run goes on. */
export type ReconciliationStatus = 'match' | 'mismatch' | 'incomplete' | 'unavailable';

/** One metric of one reconciled series over one window. */
export interface ReconciliationRow {
  stream: string;
  seriesKey: string;
  /** Inclusive start, exclusive end (UTC). */
  windowStart: Date;
  windowEnd: Date;
  metric: string;
  /** Null when the check was unavailable. */
  expected: number | null;
  actual: number;
  status: ReconciliationStatus;
}

export async function recordReconciliation(
  db: Db,
  runId: string,
  checkedAt: Date,
  rows: readonly ReconciliationRow[],
): Promise<void> {
  // A statement per 100 rows, not per row: a run reconciles every Canvas, four metrics each.
  for (let from = 0; from < rows.length; from += 100) {
    const part = rows.slice(from, from + 100);
    const tuples = part.map(
      (_, i) =>
        `(${Array.from({ length: 10 }, (_v, k) => (k === 5 || k === 6 ? `CAST($${i * 10 + k + 1} AS DOUBLE)` : `$${i * 10 + k + 1}`)).join(', ')})`,
    );
    await db.query(
      `INSERT INTO "_etl_reconciliation" VALUES ${tuples.join(', ')}`,
      part.flatMap((r) => [
        r.stream,
        r.seriesKey,
        r.windowStart,
        r.windowEnd,
        r.metric,
        r.expected,
        r.actual,
        r.status,
        runId,
        checkedAt,
      ]),
    );
  }
}

/** What is summed: `metrics` (metric → column) of `table` over [start, end) of `timeColumn`. */
export interface TotalsQuery {
  table: string;
  timeColumn: string;
  metrics: Readonly<Record<string, string>>;
  start: Date;
  end: Date;
}

/**
 * Sums of `metrics` over the stored rows of each series (its dimension column → value) in [start, end), and the units
 * stored: one query for all of them (a query per Canvas was most of a nightly run's reconciliation). `series` name the
 * same dimension columns, one canvas_id each say; the answer is in their order.
 */
export async function storedTotalsOf(
  db: Db,
  s: TotalsQuery,
  series: readonly Readonly<Record<string, string>>[],
): Promise<{ totals: Record<string, number>; units: number }[]> {
  const dimCols = Object.keys(series[0] ?? {});
  const keyOf = (dims: Readonly<Record<string, string>>): string =>
    dimCols.map((col) => dims[col] ?? '').join('\u0000');
  const keySql = dimCols.length > 0 ? `concat_ws(chr(0), ${dimCols.map((col) => ident(col)).join(', ')})` : `''`;
  const where = [
    `CAST(${ident(s.timeColumn)} AS TIMESTAMP) >= $1`,
    `CAST(${ident(s.timeColumn)} AS TIMESTAMP) < $2`,
    `list_contains($3, ${keySql})`,
  ].join(' AND ');
  const sums = Object.entries(s.metrics).map(
    ([metric, col]) => `CAST(coalesce(sum(${ident(col)}), 0) AS DOUBLE) AS ${ident(metric)}`,
  );
  const rows = await db.query(
    `SELECT ${keySql} AS "_key", count(*) AS "_units", ${sums.join(', ')} FROM ${ident(s.table)} WHERE ${where} GROUP BY ALL`,
    [s.start, s.end, series.map(keyOf)],
  );
  const byKey = new Map(rows.map((row) => [String(row['_key']), row]));
  return series.map((dims) => {
    const row = byKey.get(keyOf(dims));
    const totals: Record<string, number> = {};
    for (const metric of Object.keys(s.metrics)) totals[metric] = Number(row?.[metric] ?? 0);
    return { totals, units: Number(row?.['_units'] ?? 0) };
  });
}

/** The latest check of every reconciled series and metric, mismatches first. */
export async function latestReconciliation(
  db: Db,
): Promise<(ReconciliationRow & { runId: string; checkedAt: Date })[]> {
  const rows = await db.query(
    `SELECT * FROM "_etl_reconciliation"
     QUALIFY row_number() OVER (PARTITION BY "stream", "series_key", "metric" ORDER BY "checked_at" DESC) = 1
     ORDER BY "status" = 'match', "stream", "series_key", "metric"`,
  );
  return rows.map((r) => ({
    stream: String(r['stream']),
    seriesKey: String(r['series_key']),
    windowStart: r['window_start'] as Date,
    windowEnd: r['window_end'] as Date,
    metric: String(r['metric']),
    expected: Number(r['expected']),
    actual: Number(r['actual']),
    status: r['status'] as ReconciliationStatus,
    runId: String(r['run_id']),
    checkedAt: r['checked_at'] as Date,
  }));
}

/** Per stream, how many restated values were seen at each age in days. */
/** How many values run `runId` restated. */
export async function restatementsOfRun(db: Db, runId: string): Promise<number> {
  const [row] = await db.query('SELECT count(*) AS n FROM "_etl_restatements" WHERE "run_id" = $1', [runId]);
  return Number(row?.['n'] ?? 0);
}

export async function restatementsByAge(db: Db): Promise<{ stream: string; ageDays: number; changes: number }[]> {
  const rows = await db.query(
    `SELECT "stream", "age_days", count(*) AS "changes" FROM "_etl_restatements" GROUP BY ALL ORDER BY "stream", "age_days"`,
  );
  return rows.map((r) => ({
    stream: String(r['stream']),
    ageDays: Number(r['age_days']),
    changes: Number(r['changes']),
  }));
}

/** One series stream's look-back in one run, as `_etl_lookback` holds it. */
export interface LookbackRow {
  stream: string;
  mode: 'fixed' | 'auto';
  days: number;
  probe: boolean;
  reason: string;
}

/**
 * How many days of `_etl_lookback` each stream keeps before its newest run: twice the probe interval, so the rule always
 * sees a week of runs (a stream never probed is due once it has run for a week). Older rows are dropped but for the three
 * that status and the rule read: the stream's last probe, and the run that began its current look-back with the one
 * before it (`status` says "N d (was M d) since …").
 */
export const LOOKBACK_LOG_DAYS = 14;

/** Records the look-back of each series stream in this run, then trims `_etl_lookback` (see LOOKBACK_LOG_DAYS). */
export async function recordLookbacks(db: Db, runId: string, until: Date, rows: readonly LookbackRow[]): Promise<void> {
  if (rows.length === 0) return;
  const tuples = rows.map((_, i) => `(${Array.from({ length: 7 }, (_v, k) => `$${i * 7 + k + 1}`).join(', ')})`);
  await db.query(
    `INSERT INTO "_etl_lookback" VALUES ${tuples.join(', ')}`,
    rows.flatMap((r) => [runId, r.stream, until, r.mode, r.days, r.probe, r.reason]),
  );
  await trimLookbacks(db);
}

/**
 * Deletes the rows of `_etl_lookback` that neither the auto look-back's rule nor `status` reads: per stream, rows more
 * than LOOKBACK_LOG_DAYS before its newest run, except its last probe and the first run of its current look-back with
 * the run before it. The table then holds at most about LOOKBACK_LOG_DAYS + 3 rows per stream of nightly runs.
 */
export async function trimLookbacks(db: Db): Promise<void> {
  await db.query(
    `DELETE FROM "_etl_lookback" WHERE rowid IN (
       WITH "ordered" AS (
         SELECT rowid AS "rid", "stream", "until", "probe",
                row_number() OVER w AS "n",
                max("until") OVER (PARTITION BY "stream") AS "newest",
                (lag("lookback_days") OVER w IS DISTINCT FROM "lookback_days" OR lag("mode") OVER w IS DISTINCT FROM "mode") AS "changed"
         FROM "_etl_lookback" WINDOW w AS (PARTITION BY "stream" ORDER BY "until", "run_id")
       ),
       "marks" AS (
         SELECT "stream", max("n") FILTER (WHERE "changed") AS "stretch", max("until") FILTER (WHERE "probe") AS "last_probe" FROM "ordered" GROUP BY "stream"
       )
       SELECT o."rid" FROM "ordered" o JOIN "marks" m USING ("stream")
       WHERE o."until" < o."newest" - INTERVAL ${LOOKBACK_LOG_DAYS} DAY
         AND o."n" NOT IN (m."stretch", m."stretch" - 1)
         AND NOT (o."probe" AND o."until" = m."last_probe")
     )`,
  );
}

/**
 * Per stream, what an auto look-back is set from: the values restated at each age by runs whose --until is at or after
 * `since`, the --until of its last probe and of the oldest run `_etl_lookback` still holds.
 */
export async function lookbackEvidence(
  db: Db,
  since: Date,
): Promise<Map<string, { byAge: { ageDays: number; changes: number }[]; lastProbe?: Date; firstRecorded?: Date }>> {
  const out = new Map<
    string,
    { byAge: { ageDays: number; changes: number }[]; lastProbe?: Date; firstRecorded?: Date }
  >();
  // `plan` reads a database published before the table existed as it is (read-only): nothing recorded, nothing seen.
  if (!(await hasLookbackTable(db))) return out;
  const entry = (stream: string) => out.get(stream) ?? out.set(stream, { byAge: [] }).get(stream)!;
  const ages = await db.query(
    `SELECT x."stream", x."age_days", count(*) AS "changes" FROM "_etl_restatements" x JOIN "_etl_runs" r ON r."run_id" = x."run_id"
     WHERE r."until" >= $1 GROUP BY ALL ORDER BY ALL`,
    [since],
  );
  for (const r of ages)
    entry(String(r['stream'])).byAge.push({ ageDays: Number(r['age_days']), changes: Number(r['changes']) });
  for (const r of await db.query(
    `SELECT "stream", min("until") AS "first", max("until") FILTER (WHERE "probe") AS "probe" FROM "_etl_lookback" GROUP BY ALL`,
  )) {
    const e = entry(String(r['stream']));
    e.firstRecorded = r['first'] as Date;
    if (r['probe'] !== null) e.lastProbe = r['probe'] as Date;
  }
  return out;
}

/** A stream's look-back now, and since when (the first run of the latest unchanged stretch) and why. */
export interface LookbackNow extends LookbackRow {
  /** The --until of the run that set this many days, and the days before it (null when no run recorded another). */
  since: Date;
  previousDays: number | null;
}

/** The latest look-back of every stream recorded, and when it last changed; none for databases written before the table. */
export async function latestLookbacks(db: Db): Promise<LookbackNow[]> {
  if (!(await hasLookbackTable(db))) return [];
  const rows = await db.query(
    `SELECT "stream", "until", "mode", "lookback_days", "probe", "reason" FROM "_etl_lookback" ORDER BY "stream", "until", "run_id"`,
  );
  const out = new Map<string, LookbackNow>();
  for (const r of rows) {
    const stream = String(r['stream']);
    const days = Number(r['lookback_days']);
    const before = out.get(stream);
    const changed = before === undefined || before.days !== days || before.mode !== r['mode'];
    out.set(stream, {
      stream,
      mode: r['mode'] as LookbackRow['mode'],
      days,
      probe: Boolean(r['probe']),
      reason: String(r['reason']),
      since: changed ? (r['until'] as Date) : before.since,
      previousDays: changed ? (before?.days ?? null) : before.previousDays,
    });
  }
  return [...out.values()];
}

async function hasLookbackTable(db: Db): Promise<boolean> {
  const [exists] = await db.query(
    `SELECT count(*) AS n FROM information_schema.tables WHERE "table_name" = '_etl_lookback'`,
  );
  return Number(exists?.['n'] ?? 0) > 0;
}
