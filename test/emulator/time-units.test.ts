// The wire text of a series unit is part of every answer: it must be exactly what Date#toISOString writes, for any
// instant, including the days around month, leap-year and century boundaries and the years Date writes differently.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, formatDay, formatUnit, HOUR_MS, parseDay } from '../../src/emulator/analytics/time-units.js';

const iso = (ms: number) => new Date(ms).toISOString();
const instant = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 });

describe('formatUnit', () => {
  it('writes a day as the date and an hour as the hour instant that toISOString gives', () => {
    fc.assert(
      fc.property(fc.oneof(instant, fc.integer({ min: 0, max: 4_102_444_800_000 })), (ms) => {
        expect(formatDay(ms)).toBe(iso(ms).slice(0, 10));
        const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
        expect(formatUnit(hour, 'hour')).toBe(`${iso(hour).slice(0, 13)}:00:00Z`);
        const day = Math.floor(ms / DAY_MS) * DAY_MS;
        expect(formatUnit(day, 'day')).toBe(iso(day).slice(0, 10));
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes every day from 1970 to 2400 as toISOString does, and reads it back', () => {
    for (let ms = 0; ms < Date.UTC(2400, 0, 2); ms += DAY_MS) {
      const text = iso(ms).slice(0, 10);
      if (formatDay(ms) !== text || formatDay(ms + DAY_MS - 1) !== text) expect(formatDay(ms)).toBe(text);
      if (parseDay(text) !== ms) expect(parseDay(text)).toBe(ms);
    }
    for (const ms of [Date.UTC(9999, 11, 31, 23), Date.UTC(10_000, 0, 1), -1, -DAY_MS])
      expect(formatUnit(ms, 'hour')).toBe(`${iso(ms).slice(0, 13)}:00:00Z`);
  });
});
