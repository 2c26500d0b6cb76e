// The analytics series, computed on demand from hash functions (nothing is stored): hourly purchases per (app, product),
// sessions per app, segment sessions as a thinning of an app's sessions, and the daily segment-size stock. Values grow
// over time, follow a weekly and a diurnal curve, are zero on an app's outage day and before the workspace start, and
// are observed through late-arrival completeness (restatements) and the partial current hour.
import { hashPrefix, hashUnit, numberHasherAfter } from '../random.js';
import type { App, Product, Segment } from './analytics-catalogue.js';
import { purchaseRate, segmentShare } from './analytics-catalogue.js';
import { DAY_MS, HOUR_MS } from './time-units.js';

/** What the model needs from the workspace: its seed, start, and restatement factors. */
export interface SeriesSource {
  readonly seed: number;
  readonly startMs: number;
  /** Product of every restatement factor that matches the series, keys and UTC day. */
  restatementFactor(series: RestatedSeries, dayStartMs: number, keys: RestatementKeys): number;
  /** False when no restatement names `series`: its factor is 1 for any day and keys (the hourly models skip the call). */
  restates(series: RestatedSeries): boolean;
}

/** The series a restatement can name. */
export const RESTATED_SERIES = [
  'purchases',
  'sessions',
  'segment_size',
  'canvas',
  'events',
  'dau',
  'mau',
  'new_users',
  'uninstalls',
  'campaign',
] as const;
export type RestatedSeries = (typeof RESTATED_SERIES)[number];

export interface RestatementKeys {
  appId?: string;
  product?: string;
  segmentId?: string;
  canvasId?: string;
  /** A custom event name (series `events`). */
  event?: string;
  campaignId?: string;
}

/** Hours after which late-arriving data is complete. */
export const COMPLETENESS_HOURS = 48;

/**
 * Share of an hour's final value that is visible `ageMs` after the hour ended: 70 % at the end of the hour, rising as
 * 1 − 0.3·(1 − age/48 h)² to 100 % at 48 hours. Late data only ever adds, so an observed value never shrinks.
 */
export function completeness(ageMs: number): number {
  if (ageMs >= COMPLETENESS_HOURS * HOUR_MS) return 1;
  const missing = 1 - Math.max(0, ageMs) / (COMPLETENESS_HOURS * HOUR_MS);
  return 1 - 0.3 * missing * missing;
}

// Weekly seasonality by UTC weekday, Sunday first (as Date#getUTCDay counts).
const WEEKLY = [1.3, 0.85, 0.9, 0.95, 1.0, 1.15, 1.35] as const;

/** The UTC weekday (0 = Sunday) of an epoch ms, without a Date: 1970-01-01 was a Thursday. */
function utcWeekday(ms: number): number {
  return (((Math.floor(ms / DAY_MS) + 4) % 7) + 7) % 7;
}

// The diurnal curve by UTC hour, peaking at 19:00: computed once (a cosine per hourly value was a hot spot).
const DIURNAL = Array.from({ length: 24 }, (_, hour) => 1 + 0.8 * Math.cos((2 * Math.PI * (hour - 19)) / 24));

/** Growth, weekly seasonality and a diurnal curve: the shape every hourly rate is multiplied by. */
export function hourShape(source: SeriesSource, hourStartMs: number): number {
  const days = (hourStartMs - source.startMs) / DAY_MS;
  const growth = 1 + (0.7 * days) / 365;
  const weekly = WEEKLY[utcWeekday(hourStartMs)]!;
  const hour = Math.floor((hourStartMs - Math.floor(hourStartMs / DAY_MS) * DAY_MS) / HOUR_MS);
  return growth * weekly * DIURNAL[hour]!;
}

/** Daily shape (growth and weekly seasonality) for series kept per day. */
export function dayShape(source: SeriesSource, dayStartMs: number): number {
  const days = (dayStartMs - source.startMs) / DAY_MS;
  return (1 + (0.7 * days) / 365) * WEEKLY[utcWeekday(dayStartMs)]!;
}

/** True for an hour before the workspace start or on the app's outage day: every series of the app is zero then. */
export function isDark(source: SeriesSource, app: App, hourStartMs: number): boolean {
  const day = Math.floor(hourStartMs / DAY_MS) * DAY_MS;
  return hourStartMs < source.startMs || day === app.outageDayMs;
}

/**
 * Final (fully arrived) purchase quantity of a product in an app, by hour. The series' own constants (its rate, the hash
 * of its keys) are worked out once here, not for every hour of every answer.
 */
export function purchasesByHour(source: SeriesSource, app: App, product: Product): (hourStartMs: number) => number {
  const rate = purchaseRate(source.seed, app, product);
  const hash = numberHasherAfter(hashPrefix(source.seed, 'pq', app.id, product.id));
  const restated = source.restates('purchases');
  return (hourStartMs) => {
    if (isDark(source, app, hourStartMs)) return 0;
    if (product.firstSaleMs !== undefined && hourStartMs < product.firstSaleMs) return 0;
    const mean = rate * hourShape(source, hourStartMs);
    // A product's first-sale hour sells at least one unit, so a listed product always has a sale to show.
    const first = hourStartMs === product.firstSaleMs ? 1 : 0;
    const base = Math.max(first, Math.floor(mean + hash(hourStartMs)));
    if (!restated) return base;
    const day = Math.floor(hourStartMs / DAY_MS) * DAY_MS;
    return Math.round(base * source.restatementFactor('purchases', day, { appId: app.id, product: product.id }));
  };
}

/** Final sessions of an app, by hour. */
export function sessionsByHour(source: SeriesSource, app: App): (hourStartMs: number) => number {
  const hash = numberHasherAfter(hashPrefix(source.seed, 'sessions', app.id));
  const restated = source.restates('sessions');
  return (hourStartMs) => {
    if (isDark(source, app, hourStartMs)) return 0;
    const mean = app.sessionsPerHour * hourShape(source, hourStartMs);
    const base = Math.floor(mean * (0.9 + 0.2 * hash(hourStartMs)));
    if (!restated) return base;
    const day = Math.floor(hourStartMs / DAY_MS) * DAY_MS;
    return Math.round(base * source.restatementFactor('sessions', day, { appId: app.id }));
  };
}

/** Final sessions of a segment's members in an app, by hour: a deterministic thinning of the app's sessions. */
export function segmentSessionsByHour(
  source: SeriesSource,
  app: App,
  segment: Segment,
): (hourStartMs: number) => number {
  const sessions = sessionsByHour(source, app);
  const share = segmentShare(source.seed, app.id, segment.id);
  return (hourStartMs) => (hourStartMs < segment.lifecycle.createdMs ? 0 : Math.floor(sessions(hourStartMs) * share));
}

/**
 * What an hourly value looks like at `nowMs`: absent (undefined) when the hour has not begun, the elapsed fraction of
 * the value at 70 % completeness during the hour, and the completeness-ramped value afterwards.
 */
export function observeHour(full: number, hourStartMs: number, nowMs: number): number | undefined {
  if (hourStartMs > nowMs) return undefined;
  const hourEnd = hourStartMs + HOUR_MS;
  if (nowMs < hourEnd) return Math.floor(full * ((nowMs - hourStartMs) / HOUR_MS) * completeness(0));
  return Math.round(full * completeness(nowMs - hourEnd));
}

/** Estimated segment size on a UTC day: a stock (the day's estimate), not a sum; zero before the workspace start. */
export function segmentSize(source: SeriesSource, segment: Segment, dayStartMs: number): number {
  // A segment has no estimate before the day it was created.
  if (dayStartMs < source.startMs || dayStartMs + DAY_MS <= segment.lifecycle.createdMs) return 0;
  const noise = 0.98 + 0.04 * hashUnit(source.seed, 'segment-size', segment.id, dayStartMs);
  const days = (dayStartMs - source.startMs) / DAY_MS;
  const base = segment.baseSize * (1 + (0.4 * days) / 365) * (1 + 0.03 * Math.sin((2 * Math.PI * days) / 7)) * noise;
  return Math.round(Math.floor(base) * source.restatementFactor('segment_size', dayStartMs, { segmentId: segment.id }));
}
