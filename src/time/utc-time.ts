// Unit arithmetic and timestamp parsing in UTC, whatever the machine's zone: shared by config, extract and load.
// Days are counted as 86,400,000 ms of epoch time (UTC has no DST and JavaScript has no leap seconds), so all math is exact.
import { DateTime } from 'luxon';
import type { SeriesUnit } from '../api/types.js';

/** The granularity of a series: one point per UTC day or per UTC hour. */
export type Unit = SeriesUnit;

const UNIT_MS: Readonly<Record<Unit, number>> = { day: 86_400_000, hour: 3_600_000 };

/** Milliseconds in one unit. */
export function unitMs(unit: Unit): number {
  return UNIT_MS[unit];
}

/** The instant `ms` (milliseconds since the epoch) as a DateTime in the UTC zone. */
export function utcAt(ms: number): DateTime {
  return DateTime.fromMillis(ms, { zone: 'utc' });
}

const utc = utcAt;

/** Start of the UTC unit containing `t` (returned in the UTC zone, whatever zone `t` carries). */
export function floorUnit(t: DateTime, unit: Unit): DateTime {
  const size = unitMs(unit);
  return utc(Math.floor(t.toMillis() / size) * size);
}

/** `t` itself when it is on a unit boundary, else the start of the next unit. */
export function ceilUnit(t: DateTime, unit: Unit): DateTime {
  const size = unitMs(unit);
  return utc(Math.ceil(t.toMillis() / size) * size);
}

/** `t` moved by `n` units (n may be negative). */
export function addUnits(t: DateTime, n: number, unit: Unit): DateTime {
  return utc(t.toMillis() + n * unitMs(unit));
}

/** True when `t` is exactly on a UTC unit boundary. */
export function isAligned(t: DateTime, unit: Unit): boolean {
  return t.toMillis() % unitMs(unit) === 0;
}

/**
 * Number of units in [start, end). Both ends must be unit boundaries: a fraction of a unit here would mean a caller
 * mixed aligned and raw instants, which is a bug, so it throws rather than rounding silently.
 */
export function unitsBetween(start: DateTime, end: DateTime, unit: Unit): number {
  if (!isAligned(start, unit) || !isAligned(end, unit)) {
    throw new RangeError(
      `unitsBetween: ${isoSeconds(start)} and ${isoSeconds(end)} must both start a UTC ${unit}; floor them with floorUnit first`,
    );
  }
  return (end.toMillis() - start.toMillis()) / unitMs(unit);
}

/** `YYYY-MM-DDTHH:mm:ssZ` in UTC — the form the vendor's examples send as `ending_at` / `starting_at`. */
export function isoSeconds(t: DateTime): string {
  const ms = t.toMillis();
  // Date's own ISO text for years 0–9999 (luxon's formatter builds an object per call; a plan formats one per window).
  if (ms >= YEAR_0_MS && ms < YEAR_10000_MS) return `${new Date(ms).toISOString().slice(0, 19)}Z`;
  return t.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
}

const YEAR_0_MS = Date.parse('0000-01-01T00:00:00Z');
const YEAR_10000_MS = Date.parse('+010000-01-01T00:00:00Z');

// Date, then optionally a time (T or space) with optional seconds and fraction, then optionally a zone (only after a time).
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parse an ISO 8601 date or date-time exactly, in any of the forms the spec leaves open: `2024-03-10`,
 * `2024-03-10T00:00`, `2024-03-10T00:00:00`, `…Z`, `…+00:00`, `…-0500`, `…-05`, `… UTC`, `.000` fractions, a space instead of `T`.
 * A value without a zone is UTC (never the machine's zone). Returns the instant in the UTC zone, or undefined when the
 * text is not such a date (including impossible dates like 2024-02-30); the caller turns that into an error with context.
 */
export function parseUtcInstant(raw: string): DateTime | undefined {
  const ms = parseUtcMs(raw);
  return ms === undefined ? undefined : utc(ms);
}

/**
 * {@link parseUtcInstant} as epoch milliseconds, with no DateTime made: every point of every series goes through it.
 */
export function parseUtcMs(raw: string): number | undefined {
  const m = ISO_PATTERN.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  // Sub-millisecond digits cannot be represented; they are truncated, which keeps the instant inside the same unit.
  const millisecond = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  // No month 13, no February 30, and ISO's 24:00 is refused as ambiguous.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = zone === undefined ? 0 : zoneOffsetMinutes(zone);
  if (offsetMinutes === undefined) return undefined;
  return (
    daysFromCivil(year, month, day) * 86_400_000 +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 +
    millisecond
  );
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date, for any year (Date.UTC maps years 0–99 to 1900–1999). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z' || zone === 'UTC') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

/**
 * The unit a series point belongs to, or undefined when `raw` is not an ISO 8601 date (the caller raises the error, since
 * only it knows the endpoint and request).
 * - hour: the UTC hour containing the instant (offsets converted, no zone = UTC): an hour is an instant everywhere.
 * - day: the calendar date the platform wrote, as the UTC day of that date. A platform whose days are its workspace's
 *   local days writes `2024-03-01T00:00:00+02:00` for 1 March; converting that instant to UTC would file the day under
 *   29 February. The offset is kept apart ({@link writtenOffset}) so a run can say when it changes.
 */
export function parseSeriesTime(raw: string, unit: Unit): DateTime | undefined {
  const ms = parseSeriesTimeMs(raw, unit);
  return ms === undefined ? undefined : utc(ms);
}

/** {@link parseSeriesTime} as epoch milliseconds, with no DateTime made. */
export function parseSeriesTimeMs(raw: string, unit: Unit): number | undefined {
  const ms = parseUtcMs(raw);
  if (ms === undefined) return undefined;
  if (unit === 'day') {
    const [, y, mo, d] = ISO_PATTERN.exec(raw.trim())!;
    return daysFromCivil(Number(y), Number(mo), Number(d)) * 86_400_000;
  }
  const size = unitMs(unit);
  return Math.floor(ms / size) * size;
}

/**
 * The UTC offset a date-time was written with, as `+HH:MM` (`Z` and `UTC` are `+00:00`); undefined for a bare date or a
 * date-time without a zone (UTC by the spec's rule, but nothing the platform said about its days).
 */
export function writtenOffset(raw: string): string | undefined {
  const zone = ISO_PATTERN.exec(raw.trim())?.[8];
  if (zone === undefined) return undefined;
  const minutes = zoneOffsetMinutes(zone);
  if (minutes === undefined) return undefined;
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
