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
  if (unit === 'day') return formatDay(startMs);
  if (!(startMs >= 0 && startMs < YEAR_10000_MS)) return `${new Date(startMs).toISOString().slice(0, 13)}:00:00Z`;
  return `${formatDay(startMs)}T${TWO_DIGITS[Math.floor((startMs % DAY_MS) / HOUR_MS)]}:00:00Z`;
}

/** Zero-padded text of 0 to 99. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/** 10000-01-01T00:00:00Z: from here on (and before 1970) the ISO text has no four-digit year, and Date writes it. */
const YEAR_10000_MS = 253_402_300_800_000;

/**
 * `YYYY-MM-DD` of the UTC day containing `ms`, as `toISOString` writes it. Every point of every series has one, so the
 * civil date is worked out from the day number (Howard Hinnant's days_from_civil inverse) without a Date.
 */
export function formatDay(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000_MS)) return new Date(ms).toISOString().slice(0, 10);
  const z = Math.floor(ms / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const m = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * m + 2) / 5) + 1;
  const month = m < 10 ? m + 3 : m - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
}

/** Epoch ms of a `YYYY-MM-DD` UTC day, or undefined when the text is not a real date. */
export function parseDay(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && formatDay(ms) === text ? ms : undefined;
}
