// Series timestamps in every form the spec leaves open, and the unit arithmetic underneath the windows.
import { DateTime } from 'luxon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUtcMs } from '../../src/time/utc-time.js';
import {
  addUnits,
  ceilUnit,
  floorUnit,
  isoSeconds,
  parseSeriesTime,
  parseUtcInstant,
  unitsBetween,
  writtenOffset,
} from '../../src/extract/windows.js';

const utc = (iso: string): DateTime => DateTime.fromISO(iso, { zone: 'utc' });

describe('parseSeriesTime', () => {
  it.each([
    ['2024-03-10', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00Z', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00+00:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00.000Z', '2024-03-10T00:00:00Z'],
    ['2024-03-10 00:00:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10 00:00:00 UTC', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00+02:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10T01:00:00+02:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10T00:00:00-05:00', '2024-03-10T00:00:00Z'],
    ['2024-03-10T19:30:00-05:00', '2024-03-10T00:00:00Z'],
    ['2024-03-31T00:00:00+02:00', '2024-03-31T00:00:00Z'],
    ['2024-03-10T23:59:59.999999Z', '2024-03-10T00:00:00Z'],
  ])('reads the day of %s as the date written, stored as the UTC day starting %s', (raw, expected) => {
    expect(isoSeconds(parseSeriesTime(raw, 'day')!)).toBe(expected);
  });

  it.each([
    ['2024-03-10T13:00:00', '2024-03-10T13:00:00Z'],
    ['2024-03-10T13:45:10.123Z', '2024-03-10T13:00:00Z'],
    ['2024-03-10T08:00:00-05:00', '2024-03-10T13:00:00Z'],
    ['2024-03-10T14:00:00+0100', '2024-03-10T13:00:00Z'],
    ['2024-03-10T18:30:00+05:30', '2024-03-10T13:00:00Z'],
    ['2024-03-10T13:00', '2024-03-10T13:00:00Z'],
    ['2024-03-10', '2024-03-10T00:00:00Z'],
  ])('reads the hour of %s as the UTC hour starting %s', (raw, expected) => {
    expect(isoSeconds(parseSeriesTime(raw, 'hour')!)).toBe(expected);
  });

  it('writes an instant as luxon formats it in UTC, whatever its zone and year', () => {
    const luxonIso = (t: DateTime) => t.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
    const max = Date.parse('+012000-01-01T00:00:00Z');
    fc.assert(
      fc.property(
        fc.integer({ min: -max, max }),
        fc.constantFrom('utc', 'America/New_York', 'Asia/Kolkata'),
        (ms, zone) => {
          const t = DateTime.fromMillis(ms, { zone });
          expect(isoSeconds(t)).toBe(luxonIso(t));
        },
      ),
    );
    for (const edge of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z'])
      expect(isoSeconds(DateTime.fromMillis(Date.parse(edge)))).toBe(edge);
  });

  it.each([
    '',
    'yesterday',
    '2024-13-01',
    '2024-02-30',
    '2023-02-29',
    '2024-03-10T24:00:00',
    '2024-03-10T12:60:00',
    '2024-03-10Z',
    '03/10/2024',
    '2024-03-10T00:00:00+25:00',
    '20240310',
  ])('refuses %j', (raw) => {
    expect(parseSeriesTime(raw, 'day')).toBeUndefined();
  });

  it('accepts the leap day of a leap year', () => {
    expect(isoSeconds(parseSeriesTime('2024-02-29', 'day')!)).toBe('2024-02-29T00:00:00Z');
  });

  it('says which offset a time was written with, and none for a bare date or a time without a zone', () => {
    expect(
      [
        '2024-03-10T00:00:00+02:00',
        '2024-03-10T00:00:00-0500',
        '2024-03-10T00:00:00Z',
        '2024-03-10 00:00:00 UTC',
        '2024-03-10T00:00+0530',
        '2024-03-10',
        '2024-03-10T00:00:00',
      ].map(writtenOffset),
    ).toEqual(['+02:00', '-05:00', '+00:00', '+00:00', '+05:30', undefined, undefined]);
  });

  it('keeps the exact instant when asked for it, not the unit', () => {
    expect(parseUtcInstant('2024-03-10T08:15:30.250-05:00')!.toISO()).toBe('2024-03-10T13:15:30.250Z');
  });
});

describe('unit arithmetic', () => {
  it('floors and ceils to UTC units whatever zone the input carries', () => {
    const ny = DateTime.fromISO('2024-03-09T22:30:00', { zone: 'America/New_York' }); // 2024-03-10T03:30Z
    expect(isoSeconds(floorUnit(ny, 'day'))).toBe('2024-03-10T00:00:00Z');
    expect(isoSeconds(ceilUnit(ny, 'day'))).toBe('2024-03-11T00:00:00Z');
    expect(isoSeconds(floorUnit(ny, 'hour'))).toBe('2024-03-10T03:00:00Z');
    expect(floorUnit(ny, 'day').zoneName).toBe('UTC');
  });

  it('leaves a boundary where it is when ceiling', () => {
    expect(isoSeconds(ceilUnit(utc('2024-03-10T00:00:00Z'), 'day'))).toBe('2024-03-10T00:00:00Z');
  });

  it('adds 24 exact hours per day across a DST change', () => {
    expect(isoSeconds(addUnits(utc('2024-03-09T12:00:00Z'), 2, 'day'))).toBe('2024-03-11T12:00:00Z');
    expect(unitsBetween(utc('2024-03-09T00:00:00Z'), utc('2024-03-12T00:00:00Z'), 'hour')).toBe(72);
  });

  it('refuses to count units between instants that are not unit boundaries', () => {
    expect(() => unitsBetween(utc('2024-03-09T00:00:01Z'), utc('2024-03-12T00:00:00Z'), 'day')).toThrow(/floorUnit/);
  });
});

describe('parseUtcMs', () => {
  it('agrees with luxon on every date-time of random fields, valid or not (years 0000–9999, month 0–13, day 0–32)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom('', 'Z', '+05:30', '-0800', '-03', ' UTC'),
        (year, month, day, hour, minute, ms, zone) => {
          const p = (n: number, w = 2) => String(n).padStart(w, '0');
          const text = `${p(year, 4)}-${p(month)}-${p(day)}T${p(hour)}:${p(minute)}:07.${p(ms, 3)}${zone}`;
          const viaLuxon = DateTime.fromObject(
            { year, month, day, hour, minute, second: 7, millisecond: ms },
            { zone: 'utc' },
          );
          const offset = zone === '+05:30' ? 330 : zone === '-0800' ? -480 : zone === '-03' ? -180 : 0;
          const expected = !viaLuxon.isValid || hour > 23 ? undefined : viaLuxon.toMillis() - offset * 60_000;
          expect(parseUtcMs(text)).toBe(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
