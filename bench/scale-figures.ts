// The pure arithmetic of `npm run bench -- --scale`: the pipeline it runs, the spans it runs over, and the figures it
// derives from a measured command (per 1,000 requests, per million rows, as a multiple of the yardstick).

/** The span a scale run covers: `start` → `until` for the first run, `next` for the nightly increment after it. */
export interface ScaleSpan {
  start: string;
  until: string;
  next: string;
  /** The emulator's frozen clock: a few hours past `next`, when a nightly job runs. */
  now: string;
  months: number;
}

/** 17 months by default: 2024-06-01 to 2025-11-01. */
const UNTIL = '2025-11-01';

/** The span of `months` whole months ending on 2025-11-01 (1 ≤ months ≤ 120). */
export function scaleSpan(months: number): ScaleSpan {
  if (!Number.isInteger(months) || months < 1 || months > 120)
    throw new Error(`--months must be a whole number of months from 1 to 120, got ${months}`);
  const until = new Date(`${UNTIL}T00:00:00Z`);
  const start = new Date(Date.UTC(until.getUTCFullYear(), until.getUTCMonth() - months, 1));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    start: day(start),
    until: `${UNTIL}T00:00:00Z`,
    next: '2025-11-02T00:00:00Z',
    now: '2025-11-02T06:00:00Z',
    months,
  };
}

/** The scale pipeline: Canvas summaries (variants, steps, reconciled), Canvas details, campaigns likewise. */
export function scalePipeline(start: string): string {
  return [
    'name: scale',
    `start_date: ${start}`,
    'streams:',
    '  canvas_summary:  { canvases: all, source: data_series, reconcile: true, variant_breakdown: true, step_breakdown: true }',
    '  canvas_details:  { canvases: all }',
    '  campaign_series: { campaigns: all }',
    '  campaigns:       {}',
    '',
  ].join('\n');
}

/**
 * The yardstick: CPU seconds this machine takes to `JSON.parse` a fixed sample of the scale pipeline's own responses
 * and to `read_json` the rows they loaded. Per request and per row, it is the floor a run's CPU is compared with.
 */
export interface Yardstick {
  requests: number;
  responseBytes: number;
  rows: number;
  parseCpuSeconds: number;
  readJsonCpuSeconds: number;
}

export function yardstickSeconds(y: Yardstick): number {
  return y.parseCpuSeconds + y.readJsonCpuSeconds;
}

/** The yardstick's CPU seconds per 1,000 requests (parsing their answers plus loading their rows). */
export function yardstickPerThousandRequests(y: Yardstick): number {
  return (yardstickSeconds(y) / y.requests) * 1000;
}

/** The yardstick's CPU seconds per million rows. */
export function yardstickPerMillionRows(y: Yardstick): number {
  return (yardstickSeconds(y) / y.rows) * 1e6;
}

/** What one measured command costs, raw and as multiples of the yardstick. */
export interface ScaledCost {
  cpuPerThousandRequests: number;
  cpuPerMillionRows: number | undefined;
  /** CPU per 1,000 requests ÷ the yardstick's: how many times the bare parse-and-load floor. */
  requestRatio: number;
  rowRatio: number | undefined;
  /** Wall ÷ the yardstick's CPU for as many requests: how many floors the wait took. */
  wallRatio: number;
}

export function scaledCost(
  cost: { cpuSeconds: number; wallMs: number; requests: number; rows?: number },
  y: Yardstick,
): ScaledCost {
  const perK = (cost.cpuSeconds / Math.max(1, cost.requests)) * 1000;
  const perM = cost.rows === undefined || cost.rows === 0 ? undefined : (cost.cpuSeconds / cost.rows) * 1e6;
  return {
    cpuPerThousandRequests: perK,
    cpuPerMillionRows: perM,
    requestRatio: perK / yardstickPerThousandRequests(y),
    rowRatio: perM === undefined ? undefined : perM / yardstickPerMillionRows(y),
    wallRatio: cost.wallMs / 1000 / ((yardstickPerThousandRequests(y) * Math.max(1, cost.requests)) / 1000),
  };
}

/**
 * Bytes a nightly increment uploads with `--db s3://`: the database object, whole, beside the Parquet files it changed.
 * `databaseShare` > 0.5 means the database is already the larger part.
 */
export function uploadShare(databaseBytes: number, parquetBytes: number): { total: number; databaseShare: number } {
  const total = databaseBytes + parquetBytes;
  return { total, databaseShare: total === 0 ? 0 : databaseBytes / total };
}
