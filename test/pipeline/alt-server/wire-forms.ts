// The spellings the spec leaves open for a `time` value and a number, rendered the way another implementation of the
// API might write them. Pure: the variant server uses them to rewrite the emulator's bodies.

/** How a series point's `time` is written. `emulator` keeps the emulator's own form (`2024-03-01`, `…T05:00:00Z`). */
export type TimeForm = 'emulator' | 'millis-z' | 'plus-zero' | 'space' | 'offset-east' | 'offset-west';

export const TIME_FORMS: readonly TimeForm[] = ['emulator', 'millis-z', 'plus-zero', 'space', 'offset-east', 'offset-west'];

/** How a number is written: as the emulator does, always with a fraction (`12.0`), or as a string (`"12"`). */
export type NumberForm = 'json' | 'float' | 'string';

/**
 * `instantMs` written in `form`: `2024-03-01T00:00:00.000Z`, `2024-03-01T00:00:00+00:00`, `2024-03-01 00:00:00` (no zone:
 * UTC by the spec's rule), `2024-03-01T01:00:00+01:00`, `2024-02-29T19:00:00-05:00` — every one the same instant. A
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
      return `${local(60)}+01:00`;
    case 'offset-west':
      return `${local(-300)}-05:00`;
  }
}

/** Rewrites a `time` string of the emulator (a date or a `Z` date-time) in `form`; unparsable text is returned as is. */
export function rewriteTime(raw: string, form: TimeForm): string {
  if (form === 'emulator') return raw;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
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
