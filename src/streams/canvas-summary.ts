// canvas_summary: a Canvas's statistics per UTC day, from GET /canvas/data_series (up to 14 days a request, the default)
// or GET /canvas/data_summary (spec 4.14 / 2.7) asked one day at a time — that endpoint rolls up its window, so a
// one-day window is what makes its rows daily. Both sources write the same rows. Optional variant and step breakdowns
// land in their own tables; a re-fetched day replaces that day's breakdown rows. `reconcile: true` compares, once a run,
// a data summary over the look-back window with the sum of the stored days.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { fetchCanvasDataSeries } from '../api/canvas-data-series.js';
import { fetchCanvasSummary, type CanvasSummaryData } from '../api/canvas-summary.js';
import { CHANNEL_COUNT_FIELDS, STEP_MESSAGE_COUNT_FIELDS } from '../api/channel-stats.js';
import {
  ENDPOINTS,
  MAX_CANVAS_DATA_SERIES_DAYS,
  MAX_CANVAS_SUMMARY_DAYS,
  type EndpointSpec,
} from '../api/endpoints.js';
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
import type { Window } from '../extract/windows.js';
import { isoSeconds } from '../extract/windows.js';
import { FatalApiError } from '../errors.js';
import { MONEY, col, defineTable, rowsOf } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import { EXTRA_STATS_COLUMN, extraStats, numberColumns, statNotices } from './channel-stat-columns.js';
import type { IdSelection } from './option-reader.js';
import { seriesStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import type { PerIdStream, Reconciliation, SeriesInstance } from './stream-declaration.js';
import { canvasDetailsStream, type CanvasDetailsOptions } from './canvas-details.js';
import { CANVAS_LIST, idListDiscovery } from './workspace-lists.js';

/** Where daily Canvas statistics come from. */
const CANVAS_SOURCES = ['data_series', 'data_summary'] as const;
export type CanvasSource = (typeof CANVAS_SOURCES)[number];

export interface CanvasSummaryOptions {
  /** Canvas ids, or `all`: every Canvas the list shows (archived ones left out). */
  canvases: IdSelection;
  /**
   * `data_series`: up to 14 days per request (needs the `canvas.data_series` permission); `data_summary`: one request
   * per day, for keys without it.
   * @default 'data_series'
   */
  source: CanvasSource;
  /** Once a run, compare a data summary of the look-back window with the stored days (`_etl_reconciliation`). @default false */
  reconcile: boolean;
  /** Send include_variant_breakdown. @default false */
  variantBreakdown: boolean;
  /** Send include_step_breakdown. @default false */
  stepBreakdown: boolean;
  /** Send include_deleted_step_data. @default false */
  deletedStepData: boolean;
}

const summaryTable = defineTable({
  name: 'canvas_summary',
  description: "A Canvas's totals per UTC day.",
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('day', 'DATE'),
    col('name', 'VARCHAR'),
    col('entries', 'BIGINT'),
    col('conversions', 'BIGINT'),
    col('conversions_by_entry_time', 'BIGINT'),
    col('revenue', MONEY),
  ],
  key: ['canvas_id', 'day'],
  partitionSource: 'day',
});

const VARIANT_V1 = ['canvas_id', 'day', 'variant_id', 'name', 'entries', 'conversions', 'revenue'];

const variantTable = defineTable({
  name: 'canvas_variant_summary',
  description:
    "A Canvas variant's totals per UTC day; a field the server leaves out is NULL, fields without a column are in `extra_stats`.",
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('day', 'DATE'),
    col('variant_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('entries', 'BIGINT'),
    col('conversions', 'BIGINT'),
    col('revenue', MONEY),
    col('conversions_by_entry_time', 'BIGINT'),
    EXTRA_STATS_COLUMN,
  ],
  key: ['canvas_id', 'day', 'variant_id'],
  partitionSource: 'day',
  upgrades: [{ from: VARIANT_V1 }],
});

const stepTable = defineTable({
  name: 'canvas_step_summary',
  description: "A Canvas step's totals per UTC day.",
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('day', 'DATE'),
    col('step_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('conversions', 'BIGINT'),
    col('conversions_by_entry_time', 'BIGINT'),
    col('revenue', MONEY),
  ],
  key: ['canvas_id', 'day', 'step_id'],
  partitionSource: 'day',
});

/** The step message counts with a column: the four of spec 2.7, then every other count documented for a channel. */
const STEP_MESSAGE_COLUMNS = [
  ...STEP_MESSAGE_COUNT_FIELDS,
  ...CHANNEL_COUNT_FIELDS.filter((f) => !(STEP_MESSAGE_COUNT_FIELDS as readonly string[]).includes(f)),
];
const STEP_MESSAGES_V1 = [
  'canvas_id',
  'day',
  'step_id',
  'channel',
  'message_index',
  'sent',
  'opens',
  'influenced_opens',
  'bounces',
];

const stepMessagesTable = defineTable({
  name: 'canvas_step_messages',
  description:
    "Message statistics of a Canvas step per UTC day, channel and message (its position in the channel's list): the four fields of the spec and every count documented for some channel, NULL where the message does not report it; fields without a column are in `extra_stats`.",
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('day', 'DATE'),
    col('step_id', 'VARCHAR'),
    col('channel', 'VARCHAR'),
    col('message_index', 'INTEGER'),
    ...STEP_MESSAGE_COLUMNS.map((f) => col(f, 'BIGINT')),
    EXTRA_STATS_COLUMN,
  ],
  key: ['canvas_id', 'day', 'step_id', 'channel', 'message_index'],
  partitionSource: 'day',
  upgrades: [{ from: STEP_MESSAGES_V1 }],
});

const withVariantNumbers = numberColumns(['entries', 'conversions', 'revenue', 'conversions_by_entry_time']);
const withStepMessageNumbers = numberColumns(STEP_MESSAGE_COLUMNS);

/** The rows of one Canvas day, whichever source (data_series or data_summary) read it. */
function canvasDayRows(
  canvasId: string,
  day: Date,
  summary: CanvasSummaryData,
  o: CanvasSummaryOptions,
): ExtractedRows {
  const scope = { columns: ['canvas_id', 'day'], values: [[canvasId, day]] };
  const t = summary.total_stats;
  const result: ExtractedRows = {
    upserts: [
      rowsOf(summaryTable, [
        {
          canvas_id: canvasId,
          day,
          name: summary.name,
          entries: t.entries,
          conversions: t.conversions,
          conversions_by_entry_time: t.conversions_by_entry_time,
          revenue: t.revenue,
        },
      ]),
    ],
    replaces: [],
  };
  const notices: RowNotice[] = [];
  if (o.variantBreakdown) {
    const variants = Object.entries(summary.variant_stats ?? {});
    const rows: RowOf<typeof variantTable>[] = variants.map(([variantId, v]) =>
      withVariantNumbers(
        { canvas_id: canvasId, day, variant_id: variantId, name: v.name, extra_stats: extraStats(v) },
        v,
      ),
    );
    result.upserts.push(rowsOf(variantTable, rows));
    result.replaces.push({ table: variantTable.name, ...scope });
    notices.push(
      ...statNotices(
        variantTable.name,
        'canvas_summary (variant_stats)',
        undefined,
        variants.map(([, v]) => v),
      ),
    );
  }
  if (o.stepBreakdown) {
    const steps: RowOf<typeof stepTable>[] = [];
    const messages: RowOf<typeof stepMessagesTable>[] = [];
    for (const [stepId, s] of Object.entries(summary.step_stats ?? {})) {
      steps.push({
        canvas_id: canvasId,
        day,
        step_id: stepId,
        name: s.name,
        conversions: s.conversions,
        conversions_by_entry_time: s.conversions_by_entry_time,
        revenue: s.revenue,
      });
      for (const [channel, list] of Object.entries(s.messages ?? {})) {
        list.forEach((m, index) => {
          const row = withStepMessageNumbers(
            { canvas_id: canvasId, day, step_id: stepId, channel, message_index: index, extra_stats: extraStats(m) },
            m,
          );
          messages.push(row);
        });
        notices.push(
          ...statNotices(stepMessagesTable.name, `canvas_summary (step_stats messages.${channel})`, channel, list),
        );
      }
    }
    result.upserts.push(rowsOf(stepTable, steps), rowsOf(stepMessagesTable, messages));
    result.replaces.push({ table: stepTable.name, ...scope }, { table: stepMessagesTable.name, ...scope });
  }
  if (notices.length > 0) result.notices = notices;
  return result;
}

/** A 403 on data_series most likely means the key lacks `canvas.data_series`: say which option avoids it. */
function withSourceHint(err: unknown): unknown {
  if (err instanceof FatalApiError && err.status === 403) {
    return new FatalApiError(
      err.context,
      `${err.message.replace(/^.*? failed with 403: /, '')}; a key without the canvas.data_series permission can still load daily Canvas statistics: set \`source: data_summary\` on the canvas_summary stream`,
      { status: 403, body: err.body, cause: err },
    );
  }
  return err;
}

function fetchDays(client: ApiClient, canvasId: string, w: Window, o: CanvasSummaryOptions) {
  const flags = {
    includeVariantBreakdown: o.variantBreakdown,
    includeStepBreakdown: o.stepBreakdown,
    includeDeletedStepData: o.deletedStepData,
  };
  if (o.source === 'data_series') {
    // `length` days ending with the day that holds `ending_at` (the documented reading); the series extractor follows up
    // on servers that read the pair otherwise.
    return fetchCanvasDataSeries(client, { canvasId, length: w.length, endingAt: w.endingAt, ...flags }).catch(
      (err: unknown) => {
        throw withSourceHint(err);
      },
    );
  }
  // One day per window: `starting_at` / `ending_at` of that day leave no doubt about which day is meant.
  return fetchCanvasSummary(client, {
    canvasId,
    startingAt: isoSeconds(w.start),
    endingAt: isoSeconds(w.end.minus(1000)),
    ...flags,
  }).then((summary) => [{ time: isoSeconds(w.start), value: summary }]);
}

/**
 * One Canvas's daily series. A class, not an object of two closures: a plan holds one per Canvas of the workspace for
 * the whole run, and its methods live once on the prototype, where closures and their context would cost each series
 * bytes of its own.
 */
class CanvasDays implements SeriesInstance<CanvasSummaryData> {
  readonly unit = 'day';
  readonly dims: { readonly canvas_id: string };
  readonly #o: CanvasSummaryOptions;
  readonly endpoint?: EndpointSpec;
  readonly maxUnits?: number;

  constructor(canvasId: string, o: CanvasSummaryOptions) {
    this.dims = { canvas_id: canvasId };
    this.#o = o;
    if (o.source === 'data_summary') {
      this.endpoint = ENDPOINTS.canvasDataSummary;
      this.maxUnits = 1;
    }
  }

  fetch(client: ApiClient, w: Window) {
    return fetchDays(client, this.dims.canvas_id, w, this.#o);
  }

  rows(day: Date, value: CanvasSummaryData): ExtractedRows {
    return canvasDayRows(this.dims.canvas_id, day, value, this.#o);
  }
}

const RECONCILED_METRICS = {
  entries: 'entries',
  conversions: 'conversions',
  conversions_by_entry_time: 'conversions_by_entry_time',
  revenue: 'revenue',
} as const;

/**
 * One Canvas's reconciliation: its stored daily totals against data_summary's over the window. A class for the reason
 * CanvasDays is: one per Canvas, held until the series are loaded; what all share lives on the prototype.
 */
class CanvasTotalsCheck implements Reconciliation {
  readonly dims: { readonly canvas_id: string };

  constructor(canvasId: string) {
    this.dims = { canvas_id: canvasId };
  }

  get endpoint() {
    return ENDPOINTS.canvasDataSummary;
  }

  get table() {
    return summaryTable.name;
  }

  get timeColumn() {
    return 'day';
  }

  get metrics() {
    return RECONCILED_METRICS;
  }

  get maxDays() {
    return MAX_CANVAS_SUMMARY_DAYS;
  }

  async fetch(client: ApiClient, start: DateTime, end: DateTime): Promise<Record<string, number>> {
    const s = await fetchCanvasSummary(client, {
      canvasId: this.dims.canvas_id,
      startingAt: isoSeconds(start),
      endingAt: isoSeconds(end.minus(1000)),
      includeVariantBreakdown: false,
      includeStepBreakdown: false,
    });
    return { ...s.total_stats };
  }
}

export const canvasSummaryStream = seriesStream({
  kind: 'series',
  name: 'canvas_summary',
  description:
    'Daily statistics of each listed Canvas (from data_series, or data_summary one day a request), with optional variant and step breakdowns.',
  endpoint: ENDPOINTS.canvasDataSeries,
  tables: [summaryTable, variantTable, stepTable, stepMessagesTable],
  maxUnits: MAX_CANVAS_DATA_SERIES_DAYS,
  options: {
    keys: ['canvases', 'source', 'reconcile', 'variant_breakdown', 'step_breakdown', 'deleted_step_data'],
    example:
      '{ canvases: [cv_1], source: data_series, reconcile: true, variant_breakdown: true, step_breakdown: true }',
    read: (r): CanvasSummaryOptions => ({
      canvases: r.idSelection('canvases', 'canvases: [cv_1]'),
      source: r.choice('source', CANVAS_SOURCES),
      reconcile: r.boolean('reconcile'),
      variantBreakdown: r.boolean('variant_breakdown'),
      stepBreakdown: r.boolean('step_breakdown'),
      deletedStepData: r.boolean('deleted_step_data'),
    }),
  },
  discovery: idListDiscovery<CanvasSummaryOptions>(
    CANVAS_LIST,
    (o) => o.canvases,
    (o, canvases) => ({ ...o, canvases }),
  ),
  references: (o) => idReference('canvases', CANVAS_LIST, o.canvases.ids),
  // canvas_details' rows: a day left out before the first entry or after the last one is a quiet day.
  activity: {
    details: canvasDetailsStream as PerIdStream,
    detailsOptions: { canvases: { all: true, ids: [] }, includeArchived: false } satisfies CanvasDetailsOptions,
    idColumn: 'canvas_id',
    dim: 'canvas_id',
    first: 'first_entry',
    last: 'last_entry',
  },
  series: (o) => o.canvases.ids.map((canvasId) => new CanvasDays(canvasId, o) as SeriesInstance),
  reconcile: (o) => (o.reconcile ? o.canvases.ids.map((canvasId) => new CanvasTotalsCheck(canvasId)) : []),
});
