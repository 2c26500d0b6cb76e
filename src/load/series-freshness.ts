// How far a series is behind, measured against the last unit that could be complete now: a daily series whose watermark
// is today's 00:00 UTC holds every complete day and is current, however late in the day it is read. A snapshot (lists,
// id-by-id streams) is as old as the instant it was taken as of.
import { SNAPSHOT } from './series-state-commit.js';

/** The start of the first unit still in progress at `now` (UTC): the watermark a current series of that unit has. */
export function completableEnd(unit: string, now: Date): Date {
  const ms = now.getTime();
  if (unit === 'day') return new Date(ms - (ms % 86_400_000));
  if (unit === 'hour') return new Date(ms - (ms % 3_600_000));
  return now;
}

/** Milliseconds of data that could be complete at `now` and that the series does not hold yet (0 when current). */
export function behindMs(unit: string, watermark: Date, now: Date): number {
  return Math.max(0, completableEnd(unit, now).getTime() - watermark.getTime());
}

/** Whether the series is a snapshot (its watermark is the instant it was taken as of) rather than a time series. */
export function isSnapshot(unit: string): boolean {
  return unit === SNAPSHOT;
}
