// Aggregation of the hourly model into the series the API answers: "all apps" and "all products" are sums, a day is
// the sum of its 24 observed hours, units not yet begun are absent, and the current unit is partial.
import type { SeriesUnit } from '../../api/types.js';
import type { App, Product, Segment } from './analytics-catalogue.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import { eventCountByHour, eventProfile, segmentEventCountByHour } from './event-model.js';
import { observeHour, purchasesByHour, segmentSessionsByHour, segmentSize, sessionsByHour } from './series-model.js';
import { formatUnit, HOUR_MS, unitMs } from './time-units.js';

export interface SeriesPoint<V> {
  time: string;
  value: V;
}

/** Observed sum of an hourly function over a unit; undefined when the unit has not begun at `nowMs`. */
function observeUnit(
  unitStartMs: number,
  unit: SeriesUnit,
  nowMs: number,
  full: (hourStartMs: number) => number,
): number | undefined {
  if (unitStartMs > nowMs) return undefined;
  let sum = 0;
  for (let h = unitStartMs; h < unitStartMs + unitMs(unit); h += HOUR_MS) sum += observeHour(full(h), h, nowMs) ?? 0;
  return sum;
}

function series<V>(
  unitStarts: readonly number[],
  unit: SeriesUnit,
  value: (start: number) => V | undefined,
): SeriesPoint<V>[] {
  const out: SeriesPoint<V>[] = [];
  for (const start of unitStarts) {
    const v = value(start);
    if (v !== undefined) out.push({ time: formatUnit(start, unit), value: v });
  }
  return out;
}

export interface PurchasesFilter {
  app?: App;
  product?: Product;
}

/** Purchase quantity and revenue per unit. Revenue is Σ observed quantity × price over (app, product, hour). */
export function purchasesSeries(
  ws: AnalyticsWorkspace,
  filter: PurchasesFilter,
  unit: SeriesUnit,
  unitStarts: readonly number[],
  nowMs: number,
): SeriesPoint<{ quantity: number; revenue: number }>[] {
  const apps = filter.app ? [filter.app] : ws.apps;
  const products = filter.product ? [filter.product] : ws.products;
  const byHour = apps.map((app) => new Map(products.map((product) => [product, purchasesByHour(ws, app, product)])));
  return series(unitStarts, unit, (start) => {
    if (start > nowMs) return undefined;
    let quantity = 0;
    let revenue = 0;
    // Products not yet sold in this unit add nothing: skipping them keeps "all products" as cheap as before they existed.
    const selling = products.filter((p) => p.firstSaleMs === undefined || p.firstSaleMs < start + unitMs(unit));
    for (const perProduct of byHour) {
      for (const product of selling) {
        const q = observeUnit(start, unit, nowMs, perProduct.get(product)!);
        if (q === undefined) return undefined;
        quantity += q;
        revenue += q * product.priceUsd;
      }
    }
    return { quantity, revenue };
  });
}

export interface SessionsFilter {
  app?: App;
  segment?: Segment;
}

/** A series summed over apps, each app's unit the observed sum of its hourly function. */
function sumOverApps(
  apps: readonly App[],
  unit: SeriesUnit,
  unitStarts: readonly number[],
  nowMs: number,
  fullFor: (app: App) => (hourStartMs: number) => number,
): SeriesPoint<number>[] {
  const fulls = apps.map(fullFor);
  return series(unitStarts, unit, (start) => {
    let sum = 0;
    for (const full of fulls) {
      const v = observeUnit(start, unit, nowMs, full);
      if (v === undefined) return undefined;
      sum += v;
    }
    return sum;
  });
}

export function sessionsSeries(
  ws: AnalyticsWorkspace,
  filter: SessionsFilter,
  unit: SeriesUnit,
  unitStarts: readonly number[],
  nowMs: number,
): SeriesPoint<number>[] {
  const segment = filter.segment;
  return sumOverApps(filter.app ? [filter.app] : ws.apps, unit, unitStarts, nowMs, (app) =>
    segment ? segmentSessionsByHour(ws, app, segment) : sessionsByHour(ws, app),
  );
}

/**
 * Occurrences of a custom event per unit, as `/events/data_series` answers them: an app's, or the sum over apps; a
 * segment's members only when a segment is given. Any name has a count; the route refuses names the workspace lacks.
 */
export function eventCounts(
  ws: AnalyticsWorkspace,
  event: string,
  filter: SessionsFilter,
  unit: SeriesUnit,
  unitStarts: readonly number[],
  nowMs: number,
): SeriesPoint<number>[] {
  const profile = eventProfile(ws, ws.apps, event);
  const segment = filter.segment;
  return sumOverApps(filter.app ? [filter.app] : ws.apps, unit, unitStarts, nowMs, (app) =>
    segment ? segmentEventCountByHour(ws, profile, app, segment) : eventCountByHour(ws, profile, app),
  );
}

/** Daily segment size: a stock, present for every day that has begun (today included). */
export function segmentSizeSeries(
  ws: AnalyticsWorkspace,
  segment: Segment,
  dayStarts: readonly number[],
  nowMs: number,
): SeriesPoint<number>[] {
  return series(dayStarts, 'day', (start) => (start > nowMs ? undefined : segmentSize(ws, segment, start)));
}
