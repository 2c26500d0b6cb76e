// The four daily KPIs, derived from the observed sessions so they stay consistent with `/sessions/data_series`: active
// users are sessions ÷ sessions per user (so a day with sessions has users, never more users than sessions), MAU counts
// the distinct users of the 30 days ending that day, new users are a share of the active ones, uninstalls a small share.
import type { KpiMetric } from '../../api/types.js';
import { hashUnit } from '../random.js';
import type { App } from './analytics-catalogue.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import type { SeriesPoint } from './series-query.js';
import { sessionsSeries } from './series-query.js';
import { DAY_MS, formatDay } from './time-units.js';

/** Days in the rolling MAU window, the day itself included. */
export const MAU_WINDOW_DAYS = 30;

export interface KpiFilter {
  app?: App;
}

interface AppDay {
  dau: number;
  newUsers: number;
  uninstalls: number;
}

/**
 * A share in [low, high] that is the app's own (drawn once per app) plus a drift of at most ±`drift` drawn per day:
 * believable from one day to the next, different between apps.
 */
function appShare(
  seed: number,
  what: string,
  appId: string,
  dayStartMs: number,
  low: number,
  high: number,
  drift: number,
): number {
  const base = low + drift + (high - low - 2 * drift) * hashUnit(seed, what, appId);
  return base + drift * (2 * hashUnit(seed, what, appId, dayStartMs) - 1);
}

/** Observed sessions of an app on a day that has begun (0 otherwise). */
function daySessions(ws: AnalyticsWorkspace, app: App, dayStartMs: number, nowMs: number): number {
  return sessionsSeries(ws, { app }, 'day', [dayStartMs], nowMs)[0]?.value ?? 0;
}

function appDay(ws: AnalyticsWorkspace, app: App, dayStartMs: number, nowMs: number): AppDay {
  const seed = ws.seed;
  const keys = { appId: app.id };
  const sessions = daySessions(ws, app, dayStartMs, nowMs);
  // 1.7 to 2.9 sessions per active user: a habit of the app's players, so it drifts by a few points from day to day
  // rather than jumping (a daily draw over the whole range made DAU/MAU swing 11-40 %). A restatement moves the share,
  // clamped so users never outnumber sessions.
  const activeShare = appShare(seed, 'dau-share', app.id, dayStartMs, 0.35, 0.6, 0.03);
  const dau = Math.min(sessions, Math.ceil(sessions * activeShare * ws.restatementFactor('dau', dayStartMs, keys)));
  const newShare = 0.03 + 0.09 * hashUnit(seed, 'new-users', app.id, dayStartMs);
  const newUsers = Math.min(dau, Math.round(dau * newShare * ws.restatementFactor('new_users', dayStartMs, keys)));
  const uninstallShare = 0.004 + 0.016 * hashUnit(seed, 'uninstalls', app.id, dayStartMs);
  return {
    dau,
    newUsers,
    uninstalls: Math.round(dau * uninstallShare * ws.restatementFactor('uninstalls', dayStartMs, keys)),
  };
}

/** One day of one app or of all apps; all apps count a user active in several apps once (overlap). */
function kpiDay(ws: AnalyticsWorkspace, filter: KpiFilter, dayStartMs: number, nowMs: number): AppDay {
  if (filter.app) return appDay(ws, filter.app, dayStartMs, nowMs);
  const days = ws.apps.map((app) => appDay(ws, app, dayStartMs, nowMs));
  const sum = (f: (d: AppDay) => number): number => days.reduce((acc, d) => acc + f(d), 0);
  const largest = Math.max(...days.map((d) => d.dau));
  // Between the largest app's users (everyone in one app) and the sum (nobody in two).
  const overlap = 0.6 + 0.3 * hashUnit(ws.seed, 'dau-overlap', dayStartMs);
  const dau = largest + Math.ceil((sum((d) => d.dau) - largest) * overlap);
  return {
    dau,
    newUsers: Math.min(
      dau,
      sum((d) => d.newUsers),
    ),
    uninstalls: sum((d) => d.uninstalls),
  };
}

/**
 * A KPI per day as `/kpi/<metric>/data_series` answers it at `nowMs`: days not yet begun are absent, the current day
 * is partial (its sessions so far), recent days grow with the sessions' late data. MAU of day d is the largest DAU of
 * the 30 days ending d plus a share (8–15 %) of the remaining user-days: never below any DAU of its window.
 */
export function kpiSeries(
  ws: AnalyticsWorkspace,
  metric: KpiMetric,
  filter: KpiFilter,
  dayStarts: readonly number[],
  nowMs: number,
): SeriesPoint<number>[] {
  const memo = new Map<number, AppDay>();
  const day = (d: number): AppDay => {
    let v = memo.get(d);
    if (v === undefined) memo.set(d, (v = kpiDay(ws, filter, d, nowMs)));
    return v;
  };
  const out: SeriesPoint<number>[] = [];
  for (const d of dayStarts) {
    if (d > nowMs) continue;
    out.push({ time: formatDay(d), value: kpiValue(ws, metric, filter, d, day) });
  }
  return out;
}

function kpiValue(
  ws: AnalyticsWorkspace,
  metric: KpiMetric,
  filter: KpiFilter,
  d: number,
  day: (d: number) => AppDay,
): number {
  switch (metric) {
    case 'dau':
      return day(d).dau;
    case 'new_users':
      return day(d).newUsers;
    case 'uninstalls':
      return day(d).uninstalls;
    case 'mau': {
      const daus = Array.from({ length: MAU_WINDOW_DAYS }, (_, i) => day(d - i * DAY_MS).dau);
      const largest = Math.max(...daus);
      const rest = daus.reduce((a, b) => a + b, 0) - largest;
      const returning = appShare(ws.seed, 'mau-share', filter.app?.id ?? '*', d, 0.08, 0.15, 0.004);
      const keys = filter.app ? { appId: filter.app.id } : {};
      return Math.max(
        largest,
        Math.round((largest + Math.ceil(rest * returning)) * ws.restatementFactor('mau', d, keys)),
      );
    }
  }
}
