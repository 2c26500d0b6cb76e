// Date values of user attributes (spec 2.2, custom attribute type "date"): every accepted input format, zone-less
// times taken as UTC, future dates clamped to "now", and years outside 0..3000 kept as plain strings.
import { DateTime, FixedOffsetZone } from 'luxon';

export type ParsedAttributeDate =
  | { kind: 'date'; iso: string }
  /** Year below 0 or above 3000: the platform keeps the input as a string. */
  | { kind: 'string'; value: string };

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Zone designator as written (`Z`, `+02:00`, `-0500`); undefined means UTC. */
  zone: string | undefined;
}

const ZONE = '(Z|[+-]\\d{2}(?::?\\d{2})?)';
const DAY_NAMES = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';

/** ISO 8601 (`yyyy-MM-dd`, `yyyy-MM-ddTHH:mm:ss[.SSS][zone]`) and `yyyy-MM-dd HH:mm:ss`. */
const ISO_LIKE = new RegExp(
  `^(-?\\d{4,})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d{1,9}))?)?)?${ZONE}?$`,
);
/** `yyyy-MM-ddTHH:mm:ss:SSSZ` — milliseconds after a colon. */
const COLON_MILLIS = new RegExp(`^(-?\\d{4,})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2}):(\\d{3})${ZONE}?$`);
/** `MM/dd/yyyy`. */
const US_DATE = /^(\d{2})\/(\d{2})\/(-?\d{4,})$/;
/** `ddd MM dd HH:mm:ss.TZD YYYY`, e.g. `Thu 06 25 17:10:00.-07:00 2015`. */
const DAY_NAME_FORM = new RegExp(`^${DAY_NAMES} (\\d{2}) (\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})\\.${ZONE} (-?\\d{4,})$`);

function num(s: string | undefined, fallback = 0): number {
  return s === undefined ? fallback : Number(s);
}

function toParts(input: string): DateParts | undefined {
  let m = ISO_LIKE.exec(input);
  if (m) {
    return {
      year: num(m[1]),
      month: num(m[2]),
      day: num(m[3]),
      hour: num(m[4]),
      minute: num(m[5]),
      second: num(m[6]),
      millisecond: m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000),
      zone: m[8],
    };
  }
  m = COLON_MILLIS.exec(input);
  if (m) {
    return {
      year: num(m[1]),
      month: num(m[2]),
      day: num(m[3]),
      hour: num(m[4]),
      minute: num(m[5]),
      second: num(m[6]),
      millisecond: num(m[7]),
      zone: m[8],
    };
  }
  m = US_DATE.exec(input);
  if (m)
    return {
      year: num(m[3]),
      month: num(m[1]),
      day: num(m[2]),
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
      zone: undefined,
    };
  m = DAY_NAME_FORM.exec(input);
  if (m) {
    return {
      year: num(m[7]),
      month: num(m[1]),
      day: num(m[2]),
      hour: num(m[3]),
      minute: num(m[4]),
      second: num(m[5]),
      millisecond: 0,
      zone: m[6],
    };
  }
  return undefined;
}

function zoneOf(designator: string | undefined): FixedOffsetZone | undefined {
  if (designator === undefined || designator === 'Z') return FixedOffsetZone.utcInstance;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(designator);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? '0');
  return FixedOffsetZone.instance(m[1] === '-' ? -minutes : minutes);
}

/**
 * Parse `input` as an attribute date. Returns undefined when it is in none of the accepted formats or names no real
 * calendar instant (e.g. `2024-02-30`), so the caller can treat it as an ordinary string.
 */
export function parseAttributeDate(input: string, nowMs: number): ParsedAttributeDate | undefined {
  const parts = toParts(input.trim());
  if (!parts) return undefined;
  if (parts.year < 0 || parts.year > 3000) return { kind: 'string', value: input };
  const zone = zoneOf(parts.zone);
  if (!zone) return undefined;
  const { zone: _designator, ...fields } = parts;
  const dt = DateTime.fromObject(fields, { zone });
  if (!dt.isValid) return undefined;
  // A date in the future is taken as "now" (spec 2.2).
  const ms = Math.min(dt.toMillis(), nowMs);
  return { kind: 'date', iso: DateTime.fromMillis(ms, { zone: 'utc' }).toISO() ?? input };
}
