// Exact windows: examples that read as the rules, then properties over random ranges in several machine zones.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { useMachineZone } from '../helpers/machine-zone.js';
import type { Unit, UnitRange, Window } from '../../src/extract/windows.js';
import {
  addUnits,
  floorUnit,
  followUpWindow,
  followUpWindows,
  isoSeconds,
  minimumRequests,
  missingRuns,
  parseSeriesTime,
  parseUtcInstant,
  splitWindows,
  unitsBetween,
} from '../../src/extract/windows.js';

const utc = (iso: string): DateTime => DateTime.fromISO(iso, { zone: 'utc' });
const iso = (t: DateTime): string => isoSeconds(t);

/** Start instants of every unit in a range, as epoch ms. */
function unitsOf(range: UnitRange): number[] {
  const n = unitsBetween(range.start, range.end, range.unit);
  return Array.from({ length: n }, (_, i) => addUnits(range.start, i, range.unit).toMillis());
}

// Two readings of `length`/`ending_at` a server may have, as pure functions returning the unit starts it would send.
/** S1: the series ends with the unit CONTAINING ending_at. */
function serverS1(unit: Unit, length: number, endingAt: string): number[] {
  const last = floorUnit(parseUtcInstant(endingAt)!, unit);
  return Array.from({ length }, (_, i) => addUnits(last, i - length + 1, unit).toMillis());
}
/** S2: only WHOLE units that end at or before ending_at. */
function serverS2(unit: Unit, length: number, endingAt: string): number[] {
  const endExclusive = floorUnit(parseUtcInstant(endingAt)!, unit);
  return Array.from({ length }, (_, i) => addUnits(endExclusive, i - length, unit).toMillis());
}

describe('splitWindows', () => {
  it('cuts 250 days into 50 + 100 + 100, the short window oldest and the recent ones full', () => {
    const range = { unit: 'day' as const, start: utc('2023-07-05T00:00:00Z'), end: utc('2024-03-11T00:00:00Z') };
    expect(unitsBetween(range.start, range.end, 'day')).toBe(250);
    const windows = splitWindows(range, 100);
    expect(windows.map((w) => w.length)).toEqual([50, 100, 100]);
    expect(windows.map((w) => w.endingAt)).toEqual([
      '2023-08-23T23:59:59Z',
      '2023-12-01T23:59:59Z',
      '2024-03-10T23:59:59Z',
    ]);
    expect(minimumRequests(range, 100)).toBe(3);
  });

  it('writes an hourly ending_at as the last second of the last hour', () => {
    const [w] = splitWindows(
      { unit: 'hour', start: utc('2024-03-10T10:00:00Z'), end: utc('2024-03-10T14:00:00Z') },
      100,
    );
    expect(w).toMatchObject({ length: 4, endingAt: '2024-03-10T13:59:59Z' });
  });

  it('refuses a maximum that is not a whole number of units', () => {
    const range = { unit: 'day' as const, start: utc('2024-03-01T00:00:00Z'), end: utc('2024-03-11T00:00:00Z') };
    expect(() => splitWindows(range, 0)).toThrow(/maxUnits/);
    expect(() => splitWindows(range, 2.5)).toThrow(/maxUnits/);
  });
});

describe('coverage follow-ups', () => {
  it('finds the runs of planned units a response left out', () => {
    const window = { unit: 'day' as const, start: utc('2024-03-01T00:00:00Z'), end: utc('2024-03-08T00:00:00Z') };
    const returned = ['2024-03-02', '2024-03-03', '2024-03-06', '2024-02-20'].map((d) => parseSeriesTime(d, 'day')!);
    expect(missingRuns(window, returned).map((r) => [iso(r.start), iso(r.end)])).toEqual([
      ['2024-03-01T00:00:00Z', '2024-03-02T00:00:00Z'],
      ['2024-03-04T00:00:00Z', '2024-03-06T00:00:00Z'],
      ['2024-03-07T00:00:00Z', '2024-03-08T00:00:00Z'],
    ]);
  });

  it('asks for one more unit than the run, ending at the exact boundary after it', () => {
    const run = { unit: 'day' as const, start: utc('2024-03-04T00:00:00Z'), end: utc('2024-03-06T00:00:00Z') };
    expect(followUpWindow(run)).toMatchObject({ length: 3, endingAt: '2024-03-06T00:00:00Z' });
    expect(
      serverS1('day', 3, '2024-03-06T00:00:00Z').map((ms) => iso(DateTime.fromMillis(ms, { zone: 'utc' }))),
    ).toEqual(['2024-03-04T00:00:00Z', '2024-03-05T00:00:00Z', '2024-03-06T00:00:00Z']);
    expect(
      serverS2('day', 3, '2024-03-06T00:00:00Z').map((ms) => iso(DateTime.fromMillis(ms, { zone: 'utc' }))),
    ).toEqual(['2024-03-03T00:00:00Z', '2024-03-04T00:00:00Z', '2024-03-05T00:00:00Z']);
  });

  it('recovers the last day a whole-units-only server drops from a 23:59:59 request', () => {
    const [w] = splitWindows(
      { unit: 'day', start: utc('2024-03-01T00:00:00Z'), end: utc('2024-03-11T00:00:00Z') },
      100,
    ) as [Window];
    const first = serverS2('day', w.length, w.endingAt).map((ms) => DateTime.fromMillis(ms, { zone: 'utc' }));
    const runs = missingRuns(w, first);
    expect(runs.map((r) => iso(r.start))).toEqual(['2024-03-10T00:00:00Z']);
    const again = followUpWindow(runs[0]!);
    expect(serverS2('day', again.length, again.endingAt)).toContain(utc('2024-03-10T00:00:00Z').toMillis());
  });

  it('splits a long run so no follow-up asks for more than the endpoint allows', () => {
    const run = { unit: 'day' as const, start: utc('2024-01-01T00:00:00Z'), end: utc('2024-04-10T00:00:00Z') }; // 100 days
    const ups = followUpWindows(run, 100);
    expect(ups.map((w) => w.length)).toEqual([2, 100]);
    expect(ups.every((w) => w.length <= 100)).toBe(true);
  });
});

// ---- properties ------------------------------------------------------------------------------------------------------

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// DST changes (US and EU, both directions), month and year ends, leap days: random instants cluster around these.
const HOT_SPOTS = [
  '2024-03-10T07:00:00Z',
  '2024-11-03T06:00:00Z',
  '2024-03-31T01:00:00Z',
  '2024-10-27T01:00:00Z',
  '2023-12-31T23:00:00Z',
  '2024-02-29T12:00:00Z',
  '2028-02-29T00:00:00Z',
  '2024-04-30T23:59:59Z',
  '2025-03-30T01:00:00Z',
].map((s) => utc(s).toMillis());
const ZONES = ['utc', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Chatham'];

const instantMs = fc.oneof(
  fc.integer({ min: utc('2015-01-01T00:00:00Z').toMillis(), max: utc('2035-01-01T00:00:00Z').toMillis() }),
  fc.tuple(fc.constantFrom(...HOT_SPOTS), fc.integer({ min: -5 * DAY, max: 5 * DAY })).map(([a, b]) => a + b),
);
/** An instant carried in a random zone: the functions must not care which. */
const instant = fc.tuple(instantMs, fc.constantFrom(...ZONES)).map(([ms, zone]) => DateTime.fromMillis(ms, { zone }));
const unitArb = fc.constantFrom<Unit>('day', 'hour');

const rangeArb = fc.tuple(unitArb, instant, fc.integer({ min: 1, max: 1500 })).map(([unit, t, n]): UnitRange => {
  const start = floorUnit(t, unit);
  return { unit, start, end: addUnits(start, n, unit) };
});

describe.each(['UTC', 'America/New_York', 'Europe/Berlin'])('properties with the machine zone set to %s', (zone) => {
  useMachineZone(zone);

  it('runs in that zone (so the properties below really exercise it)', () => {
    expect(DateTime.local().zoneName).toBe(zone);
  });

  it('splits any range into the minimum number of contiguous windows, each unit exactly once, each within the maximum', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 1, max: 120 }), (range, max) => {
        const windows = splitWindows(range, max);
        expect(windows.length).toBe(minimumRequests(range, max));
        expect(windows.length).toBe(Math.ceil(unitsBetween(range.start, range.end, range.unit) / max));
        expect(windows.flatMap((w) => unitsOf(w))).toEqual(unitsOf(range));
        expect(windows[0]!.start.toMillis()).toBe(range.start.toMillis());
        expect(windows.at(-1)!.end.toMillis()).toBe(range.end.toMillis());
        windows.forEach((w, i) => {
          expect(w.length).toBe(unitsBetween(w.start, w.end, w.unit));
          expect(w.length).toBeLessThanOrEqual(max);
          if (i > 0) expect(w.length).toBe(max); // only the oldest window may be short
          const endingAt = parseUtcInstant(w.endingAt)!;
          expect(endingAt.toMillis()).toBeGreaterThanOrEqual(addUnits(w.end, -1, w.unit).toMillis());
          expect(endingAt.toMillis()).toBeLessThan(w.end.toMillis());
          // Under the "unit containing ending_at" reading the request returns exactly the window.
          expect(serverS1(w.unit, w.length, w.endingAt)).toEqual(unitsOf(w));
        });
      }),
    );
  });

  it('parses every form of an hour back to the same UTC hour, and every form of a day back to the date it writes', () => {
    const offsetMinutes = fc.integer({ min: -48, max: 56 }).map((q) => q * 15);
    fc.assert(
      fc.property(unitArb, instant, offsetMinutes, fc.integer({ min: 0, max: DAY - 1 }), (unit, t, offset, within) => {
        const unitStart = floorUnit(t, unit);
        const inside = DateTime.fromMillis(unitStart.toMillis() + (within % (unit === 'day' ? DAY : HOUR)), {
          zone: 'utc',
        });
        const shifted = inside.setZone(
          offset === 0
            ? 'utc'
            : `UTC${offset > 0 ? '+' : '-'}${Math.floor(Math.abs(offset) / 60)}:${String(Math.abs(offset) % 60).padStart(2, '0')}`,
        );
        const forms = [
          inside.toFormat("yyyy-MM-dd'T'HH:mm:ss"),
          inside.toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"),
          inside.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"),
          inside.toFormat('yyyy-MM-dd HH:mm:ss'),
          inside.toFormat("yyyy-MM-dd'T'HH:mm:ss+00:00"),
          shifted.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ"),
          shifted.toFormat("yyyy-MM-dd'T'HH:mm:ssZZZ"),
          shifted.toISO()!,
        ];
        if (unit === 'day') forms.push(inside.toFormat('yyyy-MM-dd'));
        for (const raw of forms) {
          // A day is the date written: in another offset that may be the day before or after the UTC one.
          const expected =
            unit === 'day' ? DateTime.fromISO(raw.slice(0, 10), { zone: 'utc' }).toMillis() : unitStart.toMillis();
          expect([raw, parseSeriesTime(raw, unit)!.toMillis()]).toEqual([raw, expected]);
        }
      }),
    );
  });

  it('finds missing runs that are exactly the units not returned, each maximal', () => {
    fc.assert(
      fc.property(
        rangeArb.filter((r) => unitsBetween(r.start, r.end, r.unit) <= 200),
        fc.infiniteStream(fc.boolean()),
        (range, keep) => {
          const all = unitsOf(range);
          const kept = all.filter(() => keep.next().value);
          const runs = missingRuns(
            range,
            kept.map((ms) => DateTime.fromMillis(ms, { zone: 'utc' })),
          );
          const keptSet = new Set(kept);
          expect(runs.flatMap((r) => unitsOf(r))).toEqual(all.filter((ms) => !keptSet.has(ms)));
          for (const r of runs) {
            expect(
              keptSet.has(addUnits(r.start, -1, r.unit).toMillis()) || r.start.toMillis() === range.start.toMillis(),
            ).toBe(true);
            expect(keptSet.has(r.end.toMillis()) || r.end.toMillis() === range.end.toMillis()).toBe(true);
          }
        },
      ),
    );
  });

  it('fetches every missing run under both server readings of length and ending_at', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 2, max: 100 }), (run, max) => {
        for (const up of followUpWindows(run, max)) {
          expect(up.length).toBeLessThanOrEqual(max);
          for (const server of [serverS1, serverS2]) {
            const got = new Set(server(up.unit, up.length, up.endingAt));
            expect(unitsOf(up).every((ms) => got.has(ms))).toBe(true);
          }
        }
        expect(followUpWindows(run, max).flatMap((w) => unitsOf(w))).toEqual(unitsOf(run));
      }),
    );
  });

  it('recovers a whole planned range through any server reading: first requests plus follow-ups', () => {
    fc.assert(
      fc.property(
        rangeArb,
        fc.integer({ min: 2, max: 100 }),
        fc.constantFrom(serverS1, serverS2),
        (range, max, server) => {
          const got = new Set<number>();
          for (const w of splitWindows(range, max)) {
            const first = server(w.unit, w.length, w.endingAt).filter(
              (ms) => ms >= w.start.toMillis() && ms < w.end.toMillis(),
            );
            first.forEach((ms) => got.add(ms));
            for (const run of missingRuns(
              w,
              first.map((ms) => DateTime.fromMillis(ms, { zone: 'utc' })),
            )) {
              for (const up of followUpWindows(run, max))
                server(up.unit, up.length, up.endingAt).forEach((ms) => got.add(ms));
            }
          }
          expect(unitsOf(range).every((ms) => got.has(ms))).toBe(true);
        },
      ),
    );
  });
});
