// The freshness dbt checks on a series table, by the rule `status --fail-if-stale` applies: staleness is now minus the
// watermark, and a run stores the unit in progress, so the newest row's unit start (`max(time)`) is the stream's
// watermark. A unit in progress closes one unit after its start and the next scheduled run must follow within one
// schedule period: a table older than schedule + unit missed a run (warn), older than that plus another period missed two
// (error). Tables of lists and details are read whole every run and carry no time of their own: no freshness.
import { ident, seriesStreamOfTable, tableSpec } from '../streams/table-specs.js';

export interface SourceFreshness {
  /** The SQL expression whose maximum dbt compares with now: a TIMESTAMP (a DATE column is cast, dbt needs a time). */
  loadedAtField: string;
  warnAfterHours: number;
  errorAfterHours: number;
}

const UNIT_HOURS: Readonly<Record<string, number>> = { hour: 1, day: 24 };

/**
 * The freshness of `table`, or undefined for tables that are not series or whose stream has loaded nothing.
 * `units`: the units the stream's loaded series use (the longest one sets the allowance); `everyHours`: the schedule.
 */
export function sourceFreshness(
  table: string,
  seriesUnits: Readonly<Record<string, readonly string[]>>,
  everyHours: number,
): SourceFreshness | undefined {
  const stream = seriesStreamOfTable(table);
  const spec = tableSpec(table);
  const units = stream === undefined ? [] : (seriesUnits[stream] ?? []);
  if (spec.partitionSource === undefined || units.length === 0) return undefined;
  const timeColumn = spec.columns.find((c) => c.name === spec.partitionSource)!;
  const unitHours = Math.max(...units.map((u) => UNIT_HOURS[u] ?? 24));
  const warnAfterHours = Math.ceil(everyHours + unitHours);
  return {
    loadedAtField: timeColumn.type === 'DATE' ? `CAST(${ident(timeColumn.name)} AS TIMESTAMP)` : ident(timeColumn.name),
    warnAfterHours,
    errorAfterHours: Math.ceil(warnAfterHours + everyHours),
  };
}
