// The request plan of a run, computed before anything is fetched: per series the exact range and its windows (the
// minimum number of requests), per snapshot stream an estimate, and the totals per stream and per limit pool.
import { DateTime } from 'luxon';
import type { PoolId } from '../api/endpoints.js';
import { CDI_PAGE_SIZE, ENDPOINTS, EVENTS_PAGE_SIZE, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import type { SeriesDefinition } from '../extract/series-streams.js';
import { seriesDefinitions } from '../extract/series-streams.js';
import type { CanvasDayWindow, UnitRange, Window } from '../extract/windows.js';
import { canvasDayWindows, completeEnd, minimumRequests, planRange, splitWindows } from '../extract/windows.js';
import type { SeriesState } from '../load/warehouse.js';

export interface SeriesPlan {
  kind: 'series';
  def: SeriesDefinition;
  range: UnitRange | undefined;
  windows: Window[];
  /** End of the last complete unit before --until: the farthest the watermark may go. */
  completeEnd: DateTime;
  watermark: Date | undefined;
}

export interface CanvasSummaryPlan {
  kind: 'canvas_summary';
  canvasId: string;
  seriesKey: string;
  range: UnitRange | undefined;
  days: CanvasDayWindow[];
  completeEnd: DateTime;
  watermark: Date | undefined;
}

/** A stream fetched whole every run (metadata, event names): its request count is only known as an estimate. */
export interface SnapshotPlan {
  kind: 'snapshot';
  stream: StreamName;
  pool: PoolId;
  /** Ids to fetch one by one (canvases, templates, blocks); empty for paged lists. */
  ids: readonly string[];
  estimatedRequests: number;
}

export interface StreamPlanSummary {
  stream: StreamName;
  series: number;
  requests: number;
  /** Σ ceil(units / max length) per series, plus the paged snapshots' estimate: what no client could go below. */
  minimum: number;
  pool: PoolId;
  /** True for paged lists (events, data integrations): their page count is only known once fetched. */
  estimated: boolean;
}

export interface Plan {
  series: SeriesPlan[];
  canvases: CanvasSummaryPlan[];
  snapshots: SnapshotPlan[];
  streams: StreamPlanSummary[];
  byPool: Partial<Record<PoolId, number>>;
  requests: number;
  minimum: number;
  /** True when some count is an estimate (a paged list whose size is unknown until fetched). */
  estimated: boolean;
}

export interface PlanInput {
  pipeline: PipelineDefinition;
  streams: readonly StreamName[];
  /** Stored watermarks; empty for a first (or full-refresh) run. */
  states: readonly SeriesState[];
  /** First day for series without state. */
  from: DateTime;
  until: DateTime;
  /** Rows already stored in the paged snapshot tables, to estimate their page count. */
  knownRows: { custom_events: number; data_integrations: number };
}

export function canvasSeriesKey(canvasId: string): string {
  return `unit=day|canvas_id=${canvasId}`;
}

export function buildPlan(input: PlanInput): Plan {
  const selected = new Set<string>(input.streams);
  const stateOf = new Map(input.states.map((s) => [`${s.stream}\u0000${s.seriesKey}`, s]));
  const watermarkOf = (stream: string, key: string): Date | undefined => stateOf.get(`${stream}\u0000${key}`)?.watermark;
  const lookbackDays = input.pipeline.lookbackDays;

  const series = seriesDefinitions(input.pipeline, selected).map((def): SeriesPlan => {
    const watermark = watermarkOf(def.stream, def.seriesKey);
    const range = planRange({ unit: def.unit, watermark: utc(watermark), from: input.from, until: input.until, lookbackDays });
    return {
      kind: 'series', def, range, watermark,
      windows: range ? splitWindows(range, MAX_SERIES_LENGTH) : [],
      completeEnd: completeEnd(input.until, def.unit),
    };
  });

  const canvasConfig = input.pipeline.streams.canvas_summary;
  const canvases = canvasConfig && selected.has('canvas_summary')
    ? canvasConfig.canvases.map((canvasId): CanvasSummaryPlan => {
        const seriesKey = canvasSeriesKey(canvasId);
        const watermark = watermarkOf('canvas_summary', seriesKey);
        const range = planRange({ unit: 'day', watermark: utc(watermark), from: input.from, until: input.until, lookbackDays });
        return {
          kind: 'canvas_summary', canvasId, seriesKey, range, watermark,
          days: range ? canvasDayWindows(range) : [],
          completeEnd: completeEnd(input.until, 'day'),
        };
      })
    : [];

  const snapshots: SnapshotPlan[] = [];
  const s = input.pipeline.streams;
  if (s.custom_events && selected.has('custom_events')) {
    snapshots.push({ kind: 'snapshot', stream: 'custom_events', pool: ENDPOINTS.eventsList.pool, ids: [], estimatedRequests: eventsPages(input.knownRows.custom_events) });
  }
  if (s.canvas_details && selected.has('canvas_details')) {
    snapshots.push({ kind: 'snapshot', stream: 'canvas_details', pool: ENDPOINTS.canvasDetails.pool, ids: s.canvas_details.canvases, estimatedRequests: s.canvas_details.canvases.length });
  }
  if (s.email_templates && selected.has('email_templates')) {
    snapshots.push({ kind: 'snapshot', stream: 'email_templates', pool: ENDPOINTS.emailTemplateInfo.pool, ids: s.email_templates.ids, estimatedRequests: s.email_templates.ids.length });
  }
  if (s.content_blocks && selected.has('content_blocks')) {
    snapshots.push({ kind: 'snapshot', stream: 'content_blocks', pool: ENDPOINTS.contentBlockInfo.pool, ids: s.content_blocks.ids, estimatedRequests: s.content_blocks.ids.length });
  }
  if (s.data_integrations && selected.has('data_integrations')) {
    snapshots.push({ kind: 'snapshot', stream: 'data_integrations', pool: ENDPOINTS.cdiIntegrations.pool, ids: [], estimatedRequests: integrationsPages(input.knownRows.data_integrations) });
  }

  return summarize(series, canvases, snapshots);
}

/** Pages to read `names` event names: the list is read until a page comes back short, so a full last page costs one more. */
export function eventsPages(names: number): number {
  return Math.floor(names / EVENTS_PAGE_SIZE) + 1;
}

/** Pages to read `integrations` integrations: the Link header stops at the last page, so a full last page costs nothing more. */
export function integrationsPages(integrations: number): number {
  return Math.max(1, Math.ceil(integrations / CDI_PAGE_SIZE));
}

/** A stored watermark as a UTC DateTime. */
function utc(value: Date | undefined): DateTime | undefined {
  return value ? DateTime.fromJSDate(value, { zone: 'utc' }) : undefined;
}

function summarize(series: SeriesPlan[], canvases: CanvasSummaryPlan[], snapshots: SnapshotPlan[]): Plan {
  const streams = new Map<StreamName, StreamPlanSummary>();
  const byPool: Partial<Record<PoolId, number>> = {};
  const add = (stream: StreamName, pool: PoolId, requests: number, minimum: number, seriesCount: number, estimated = false) => {
    const entry = streams.get(stream) ?? { stream, series: 0, requests: 0, minimum: 0, pool, estimated };
    entry.series += seriesCount;
    entry.requests += requests;
    entry.minimum += minimum;
    streams.set(stream, entry);
    byPool[pool] = (byPool[pool] ?? 0) + requests;
  };
  for (const p of series) add(p.def.stream, p.def.pool, p.windows.length, p.range ? minimumRequests(p.range, MAX_SERIES_LENGTH) : 0, 1);
  for (const c of canvases) add('canvas_summary', ENDPOINTS.canvasDataSummary.pool, c.days.length, c.days.length, 1);
  // Id-by-id snapshots cost exactly one request per id; paged lists are estimated from the rows stored last time.
  for (const s of snapshots) add(s.stream, s.pool, s.estimatedRequests, s.estimatedRequests, s.ids.length || 1, s.ids.length === 0);
  const list = [...streams.values()];
  return {
    series, canvases, snapshots, streams: list, byPool,
    requests: list.reduce((n, s) => n + s.requests, 0),
    minimum: list.reduce((n, s) => n + s.minimum, 0),
    estimated: list.some((s) => s.estimated),
  };
}
