// UTC hour/day arithmetic on epoch milliseconds, shared by the series model and the series routes: the emulator
// works on whole UTC hours and days, and formats them the way the wire does (`YYYY-MM-DD`, `YYYY-MM-DDTHH:00:00Z`).
import type { SeriesUnit } from '../../api/types.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Start of the UTC unit (hour or day) containing `ms`. */
export function unitStart(ms: number, unit: SeriesUnit): number {
  const size = unit === 'hour' ? HOUR_MS : DAY_MS;
  return Math.floor(ms / size) * size;
}

export function unitMs(unit: SeriesUnit): number {
  return unit === 'hour' ? HOUR_MS : DAY_MS;
}

/** Wire form of a unit's start: a date for days, an hour instant for hours. */
export function formatUnit(startMs: number, unit: SeriesUnit): string {
  const iso = new Date(startMs).toISOString();
  return unit === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 13)}:00:00Z`;
}

/** `YYYY-MM-DD` of a UTC day start. */
export function formatDay(dayStartMs: number): string {
  return new Date(dayStartMs).toISOString().slice(0, 10);
}

/** Epoch ms of a `YYYY-MM-DD` UTC day, or undefined when the text is not a real date. */
export function parseDay(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && formatDay(ms) === text ? ms : undefined;
}
