// Columns and row values for statistics that differ per channel or variant (campaign variations, Canvas step messages
// and variants): one typed column per documented field, NULL where an entry lacks it, and an `extra_stats` JSON column
// for fields without one; the notices that make a run warn, once, about fields this version does not know.
import { CHANNEL_COUNT_FIELDS, isDocumentedChannel, type SplitStats } from '../api/channel-stats.js';

const COUNT_FIELDS: ReadonlySet<string> = new Set(CHANNEL_COUNT_FIELDS);
import type { RowNotice } from '../extract/extracted-rows.js';
import { col } from '../load/table-definition.js';

/** One BIGINT column per count documented for some channel. */
export const CHANNEL_COUNT_COLUMNS = CHANNEL_COUNT_FIELDS.map((f) => col(f, 'BIGINT'));

/** The JSON column of the fields without a column: per-button push clicks and fields this version does not know. */
export const EXTRA_STATS_COLUMN = col('extra_stats', 'JSON');

/**
 * A writer giving a row a column for each of `fields`: the entry's number where present, else null, assigned in place.
 * Generated with a store by a name written in the code for each field: V8 keeps an object whose properties were added
 * that way in its fast layout (up to 128 of them), but turns it into a hash table after a dozen added by a computed name
 * (`row[field] = …`), and then every later read of the row is a lookup — the loader reads all 45 columns of a
 * campaign message row. The names are the documented fields, written as JSON string literals.
 */
export function numberColumns<F extends string>(
  fields: readonly F[],
): <R extends object>(row: R, split: SplitStats) => R & Record<F, number | null> {
  const stores = fields.map((f) => `row[${JSON.stringify(f)}] = n[${JSON.stringify(f)}] ?? null;`).join('\n');
  return new Function('row', 'split', `const n = split.numbers;\n${stores}\nreturn row;`) as <R extends object>(
    row: R,
    split: SplitStats,
  ) => R & Record<F, number | null>;
}

/** `extra_stats` of an entry: null when every field had a column. */
export function extraStats(split: SplitStats): Record<string, unknown> | null {
  return Object.keys(split.extra).length === 0 ? null : split.extra;
}

/**
 * What the run must be told about the entries of one channel (`channel` undefined: entries without one, Canvas
 * variants): a channel the documentation does not list, once, with the fields it carried and where each went; else
 * each unknown field.
 */
export function statNotices(
  table: string,
  where: string,
  channel: string | undefined,
  entries: readonly SplitStats[],
): RowNotice[] {
  const unknown = [...new Set(entries.flatMap((e) => e.unknown))].sort();
  const kept = `kept as sent in ${table}.extra_stats`;
  if (channel !== undefined && !isDocumentedChannel(channel)) {
    if (entries.length === 0) return [];
    const counted = [
      ...new Set(entries.flatMap((e) => Object.keys(e.numbers).filter((f) => COUNT_FIELDS.has(f)))),
    ].sort();
    const parts = [
      ...(counted.length > 0
        ? [
            `its fields ${counted.join(', ')} are read into the columns of those names, as another channel documents them, and counted by the campaign views`,
          ]
        : []),
      ...(unknown.length > 0 ? [`its fields ${unknown.join(', ')} are ${kept}`] : []),
    ];
    return [
      {
        code: 'undocumented_channel',
        key: channel,
        message: `${where}: channel "${channel}" is not one this version knows; ${[...parts, 'its documented common fields are in their columns'].join('; ')}. Upgrade engage-etl for its own measures`,
      },
    ];
  }
  if (unknown.length === 0) return [];
  return unknown.map((field) => ({
    code: 'undocumented_field',
    key: `${channel ?? ''}.${field}`,
    message: `${where}: field "${field}"${channel === undefined ? '' : ` of channel "${channel}"`} is not one this version knows; it is ${kept}. Upgrade engage-etl for a typed column`,
  }));
}
