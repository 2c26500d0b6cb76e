// Custom event occurrences, computed on demand like the other series: each event name has a seeded hourly rate
// (heavy-tailed: a few events fire hundreds of times an hour, many only a few times a day) split over the apps, and a
// first occurrence in the workspace's first weeks that always counts at least one, so every listed event has happened.
import { hashPrefix, hashUnit, numberHasherAfter } from '../random.js';
import type { App, Segment } from './analytics-catalogue.js';
import { segmentShare } from './analytics-catalogue.js';
import type { SeriesSource } from './series-model.js';
import { hourShape, isDark } from './series-model.js';
import { DAY_MS, HOUR_MS } from './time-units.js';

/** Every event first occurs within this many days of the workspace start. */
export const EVENT_FIRST_OCCURRENCE_DAYS = 60;

/** What the model knows of one event name; derived from (seed, name) alone, so any name has one. */
export interface EventProfile {
  name: string;
  /** Mean occurrences per hour over all apps at the workspace start, before growth, weekly and diurnal shaping. */
  ratePerHour: number;
  /** Epoch ms of the hour of the first occurrence: zero before it, at least one in it. */
  firstHourMs: number;
  /** The app in which the first occurrence happens. */
  firstAppId: string;
  /** Share of the occurrences per app id; the shares sum to 1. */
  appShares: ReadonlyMap<string, number>;
  /** Per app id, the hash state of (seed, 'event-count', name, app id): an hour's count hashes only its instant. */
  countHashes: ReadonlyMap<string, number>;
}

export function eventProfile(source: SeriesSource, apps: readonly App[], name: string): EventProfile {
  const seed = source.seed;
  const weights = apps.map((a) => 0.2 + hashUnit(seed, 'event-app', name, a.id));
  const total = weights.reduce((x, y) => x + y, 0);
  return {
    name,
    // 0.05 to 500 an hour, log-uniform: most events are rare, a few dominate.
    ratePerHour: 10 ** (-1.3 + 4 * hashUnit(seed, 'event-rate', name)),
    firstHourMs:
      source.startMs + Math.floor(hashUnit(seed, 'event-first', name) * EVENT_FIRST_OCCURRENCE_DAYS * 24) * HOUR_MS,
    firstAppId: apps[Math.floor(hashUnit(seed, 'event-first-app', name) * apps.length)]!.id,
    appShares: new Map(apps.map((a, i) => [a.id, weights[i]! / total])),
    countHashes: new Map(apps.map((a) => [a.id, hashPrefix(seed, 'event-count', name, a.id)])),
  };
}

/** The instant from which an event counts as having happened: the end of its first occurrence's hour. */
export function eventHappenedAtMs(profile: EventProfile): number {
  return profile.firstHourMs + HOUR_MS;
}

/** Final (fully arrived) occurrences of an event in an app, by hour; the app's share and hash are looked up once. */
export function eventCountByHour(
  source: SeriesSource,
  profile: EventProfile,
  app: App,
): (hourStartMs: number) => number {
  const rate = profile.ratePerHour * (profile.appShares.get(app.id) ?? 0);
  const hash = numberHasherAfter(
    profile.countHashes.get(app.id) ?? hashPrefix(source.seed, 'event-count', profile.name, app.id),
  );
  const first = app.id === profile.firstAppId;
  const restated = source.restates('events');
  return (hourStartMs) => {
    if (isDark(source, app, hourStartMs) || hourStartMs < profile.firstHourMs) return 0;
    const mean = rate * hourShape(source, hourStartMs);
    let base = Math.floor(mean + hash(hourStartMs));
    if (first && hourStartMs === profile.firstHourMs) base = Math.max(base, 1);
    if (!restated) return base;
    const day = Math.floor(hourStartMs / DAY_MS) * DAY_MS;
    return Math.round(base * source.restatementFactor('events', day, { appId: app.id, event: profile.name }));
  };
}

/**
 * Final occurrences by a segment's members, by hour: a thinning of the app's count (the segment's session share × an
 * affinity).
 */
export function segmentEventCountByHour(
  source: SeriesSource,
  profile: EventProfile,
  app: App,
  segment: Segment,
): (hourStartMs: number) => number {
  const count = eventCountByHour(source, profile, app);
  const share = segmentShare(source.seed, app.id, segment.id);
  const affinity = 0.5 + 0.5 * hashUnit(source.seed, 'event-segment', profile.name, segment.id);
  return (hourStartMs) => Math.floor(count(hourStartMs) * share * affinity);
}

/** The names that have happened by `nowMs`, in the order given: what `/events/list` lists. */
export function happenedEventNames(
  source: SeriesSource,
  apps: readonly App[],
  names: readonly string[],
  nowMs: number,
): string[] {
  return names.filter((name) => eventHappenedAtMs(eventProfile(source, apps, name)) <= nowMs);
}
