// The spellings the spec leaves open for a `time` value and a number, rendered the way another implementation of the
// API might write them. Pure: the variant server uses them to rewrite the emulator's bodies.

/**
 * How a series point's `time` is written. `emulator` keeps the emulator's own form (`2024-03-01`, `…T05:00:00Z`);
 * `zone-berlin` writes Central European time, `+01:00` in winter and `+02:00` in summer (the change of 2025-03-30).
 */
export type TimeForm = 'emulator' | 'millis-z' | 'plus-zero' | 'space' | 'offset-east' | 'offset-west' | 'zone-berlin';

export const TIME_FORMS: readonly TimeForm[] = [
  'emulator',
  'millis-z',
  'plus-zero',
  'space',
  'offset-east',
  'offset-west',
  'zone-berlin',
];

/** Central European offset in minutes at an instant: summer time from the last Sunday of March to that of October, 01:00 UTC. */
function berlinOffsetMinutes(instantMs: number): number {
  const year = new Date(instantMs).getUTCFullYear();
  const lastSunday = (month: number): number => {
    const end = Date.UTC(year, month + 1, 0, 1);
    return end - new Date(end).getUTCDay() * 86_400_000;
  };
  return instantMs >= lastSunday(2) && instantMs < lastSunday(9) ? 120 : 60;
}

function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** How a number is written: as the emulator does, always with a fraction (`12.0`), or as a string (`"12"`). */
export type NumberForm = 'json' | 'float' | 'string';

/**
 * `instantMs` written in `form`: `2024-03-01T00:00:00.000Z`, `2024-03-01T00:00:00+00:00`, `2024-03-01 00:00:00` (no zone:
 * UTC by the spec's rule), `2024-03-01T02:00:00+02:00`, `2024-02-29T19:00:00-05:00` — every one the same instant. A
 * fraction of a second is kept in every form (`.435`), so no form changes the instant.
 */
export function renderInstant(instantMs: number, form: Exclude<TimeForm, 'emulator'>): string {
  const local = (offsetMinutes: number): string => {
    const iso = new Date(instantMs + offsetMinutes * 60_000).toISOString();
    return instantMs % 1000 === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
  };
  switch (form) {
    case 'millis-z':
      return new Date(instantMs).toISOString();
    case 'plus-zero':
      return `${local(0)}+00:00`;
    case 'space':
      return local(0).replace('T', ' ');
    case 'offset-east':
      return `${local(120)}+02:00`;
    case 'offset-west':
      return `${local(-300)}-05:00`;
    case 'zone-berlin': {
      const offset = berlinOffsetMinutes(instantMs);
      return `${local(offset)}${offsetText(offset)}`;
    }
  }
}

/** The offset `form` writes, in minutes, for a wall-clock time near `instantMs`; 0 for the forms without one. */
function formOffsetMinutes(instantMs: number, form: Exclude<TimeForm, 'emulator'>): number {
  if (form === 'offset-east') return 120;
  if (form === 'offset-west') return -300;
  if (form === 'zone-berlin') return berlinOffsetMinutes(instantMs);
  return 0;
}

/**
 * A day (`2024-03-01`) written as a platform whose days are local days writes it: the local midnight that starts it,
 * with that midnight's offset (`2024-03-01T00:00:00+02:00`, `2024-03-01T00:00:00-05:00`); the date stays the day's.
 */
export function renderDay(day: string, form: Exclude<TimeForm, 'emulator'>): string {
  const midnightMs = Date.parse(`${day}T00:00:00Z`);
  switch (form) {
    case 'millis-z':
      return `${day}T00:00:00.000Z`;
    case 'plus-zero':
      return `${day}T00:00:00+00:00`;
    case 'space':
      return `${day} 00:00:00`;
    default:
      return `${day}T00:00:00${offsetText(formOffsetMinutes(midnightMs, form))}`;
  }
}

/**
 * Rewrites a `time` string of the emulator in `form`: a date (a day of a daily series) keeps its date, a `Z` date-time
 * (an hour, a metadata instant) keeps its instant; unparsable text is returned as is.
 */
export function rewriteTime(raw: string, form: TimeForm): string {
  if (form === 'emulator') return raw;
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) return renderDay(raw, form);
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? raw : renderInstant(ms, form);
}

// JSON.stringify cannot write 12 as `12.0`; numbers to be written verbatim travel as marked strings and are unwrapped
// after serialization. The marker cannot occur in the emulator's data (it never writes "@@").
const RAW_MARK = '@@raw-number@@';
const RAW_PATTERN = new RegExp(`"${RAW_MARK}([^"]*)"`, 'g');

/** A number in `form`, ready to be put in a body that goes through {@link stringifyBody}. */
export function encodeNumber(value: number, form: NumberForm): unknown {
  switch (form) {
    case 'json':
      return value;
    case 'float':
      return Number.isInteger(value) ? `${RAW_MARK}${value}.0` : value;
    case 'string':
      return String(value);
  }
}

/** JSON text of a body, with numbers from {@link encodeNumber} written verbatim. */
export function stringifyBody(body: unknown): string {
  return JSON.stringify(body).replace(RAW_PATTERN, '$1');
}
