// The incremental cursor: examples that read as the rules, then properties over random ranges, outages and zones.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { useMachineZone } from '../helpers/machine-zone.js';
import type { CursorPlan, StoredHole } from '../../src/extract/incremental-cursor.js';
import {
  CursorProgress,
  completeEnd,
  coverWindows,
  cursorWindows,
  holeChanges,
  isWanted,
  laggingStart,
  orderedWindows,
  planCursor,
  planRange,
  seriesKey,
} from '../../src/extract/incremental-cursor.js';
import type { Unit } from '../../src/extract/windows.js';
import { addUnits, ceilUnit, floorUnit, isoSeconds, splitWindows, unitMs } from '../../src/extract/windows.js';

const utc = (iso: string): DateTime => DateTime.fromISO(iso, { zone: 'utc' });
const iso = (t: DateTime): string => isoSeconds(t);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the series key', () => {
  it('names the unit and the parameters in their order', () => {
    expect(seriesKey('day', { app_id: '*', product: 'gems_small' })).toBe('unit=day|app_id=*|product=gems_small');
    expect(seriesKey('hour', { segment_id: 'seg_1' })).toBe('unit=hour|segment_id=seg_1');
  });
});

describe('planRange', () => {
  const from = utc('2024-01-01T00:00:00Z');

  it('starts at from on a first run and includes the day still in progress at until', () => {
    const range = planRange({ unit: 'day', from, until: utc('2024-03-10T15:00:00Z'), lookbackDays: 3 })!;
    expect([iso(range.start), iso(range.end)]).toEqual(['2024-01-01T00:00:00Z', '2024-03-11T00:00:00Z']);
  });

  it('ends exactly at until when until is a unit boundary', () => {
    const range = planRange({ unit: 'day', from, until: utc('2024-03-10T00:00:00Z'), lookbackDays: 3 })!;
    expect(iso(range.end)).toBe('2024-03-10T00:00:00Z');
  });

  it('re-fetches the lookback days before the watermark, not the first day after it only', () => {
    const range = planRange({
      unit: 'day',
      watermark: utc('2024-03-08T00:00:00Z'),
      from,
      until: utc('2024-03-10T15:00:00Z'),
      lookbackDays: 3,
    })!;
    expect([iso(range.start), iso(range.end)]).toEqual(['2024-03-05T00:00:00Z', '2024-03-11T00:00:00Z']);
  });

  it('counts the lookback of an hourly series in whole days of 24 hours', () => {
    const range = planRange({
      unit: 'hour',
      watermark: utc('2024-03-10T13:00:00Z'),
      from,
      until: utc('2024-03-10T15:20:00Z'),
      lookbackDays: 2,
    })!;
    expect([iso(range.start), iso(range.end)]).toEqual(['2024-03-08T13:00:00Z', '2024-03-10T16:00:00Z']);
  });

  it('never starts before from, even when the lookback reaches further back', () => {
    const range = planRange({
      unit: 'day',
      watermark: utc('2024-01-02T00:00:00Z'),
      from,
      until: utc('2024-01-05T00:00:00Z'),
      lookbackDays: 7,
    })!;
    expect(iso(range.start)).toBe('2024-01-01T00:00:00Z');
  });

  it('has nothing to do when until is not after from', () => {
    expect(planRange({ unit: 'day', from, until: from, lookbackDays: 3 })).toBeUndefined();
  });

  it('refuses a negative or fractional lookback', () => {
    expect(() => planRange({ unit: 'day', from, until: utc('2024-02-01T00:00:00Z'), lookbackDays: -1 })).toThrow(
      /lookbackDays/,
    );
    expect(() => planRange({ unit: 'day', from, until: utc('2024-02-01T00:00:00Z'), lookbackDays: 1.5 })).toThrow(
      /lookbackDays/,
    );
  });
});

describe('windows of a cursor', () => {
  const until = utc('2024-03-10T15:00:00Z');
  const base = { unit: 'day' as const, maxUnits: 100, from: utc('2023-01-01T00:00:00Z'), until, lookbackDays: 3 };
  const hole = (day: string, attempts = 1, status: StoredHole['status'] = 'open'): StoredHole => ({
    startMs: utc(day).toMillis(),
    attempts,
    status,
  });

  it('re-requests a hole inside the look-back in the window already sent: no extra request', () => {
    const plan = planCursor({
      order: 'oldest_first',
      ...base,
      watermark: utc('2024-03-09T00:00:00Z'),
      holes: [hole('2024-03-07T00:00:00Z')],
    });
    expect(cursorWindows(plan)).toHaveLength(1);
    expect([iso(cursorWindows(plan)[0]!.start), cursorWindows(plan)[0]!.length]).toEqual(['2024-03-06T00:00:00Z', 5]);
  });

  it('stretches the short window back over an older hole when it fits in one request', () => {
    const plan = planCursor({
      order: 'oldest_first',
      ...base,
      watermark: utc('2024-03-09T00:00:00Z'),
      holes: [hole('2024-01-20T00:00:00Z')],
    });
    expect(cursorWindows(plan)).toHaveLength(1);
    expect([iso(cursorWindows(plan)[0]!.start), iso(cursorWindows(plan)[0]!.end)]).toEqual([
      '2024-01-20T00:00:00Z',
      '2024-03-11T00:00:00Z',
    ]);
    expect(isWanted(plan, utc('2024-01-20T00:00:00Z').toMillis())).toBe(true);
    expect(isWanted(plan, utc('2024-01-21T00:00:00Z').toMillis())).toBe(false); // between the hole and the range: not loaded
  });

  it('adds one window for holes too old to fit, and none for holes confirmed absent', () => {
    const plan = planCursor({
      order: 'oldest_first',
      ...base,
      watermark: utc('2024-03-09T00:00:00Z'),
      holes: [
        hole('2023-06-01T00:00:00Z'),
        hole('2023-06-20T00:00:00Z'),
        hole('2023-02-01T00:00:00Z', 4, 'confirmed_absent'),
      ],
    });
    expect(cursorWindows(plan).map((w) => [iso(w.start), w.length])).toEqual([
      ['2023-06-01T00:00:00Z', 20],
      ['2024-03-06T00:00:00Z', 5],
    ]);
  });

  it('plans only the holes when the range is empty', () => {
    const plan = planCursor({
      order: 'oldest_first',
      ...base,
      from: until.plus({ days: 1 }),
      watermark: until.plus({ days: 2 }),
      holes: [hole('2024-03-01T00:00:00Z')],
    });
    expect(plan.range).toBeUndefined();
    expect(cursorWindows(plan).map((w) => [iso(w.start), w.length])).toEqual([['2024-03-01T00:00:00Z', 1]]);
  });
});

describe('holes', () => {
  const plan = planCursor({
    order: 'oldest_first',
    unit: 'day',
    maxUnits: 100,
    from: utc('2024-01-01T00:00:00Z'),
    until: utc('2024-03-10T15:00:00Z'),
    lookbackDays: 3,
    watermark: utc('2024-03-09T00:00:00Z'),
    holes: [
      { startMs: utc('2024-03-07T00:00:00Z').toMillis(), attempts: 2, status: 'open' },
      { startMs: utc('2024-03-06T00:00:00Z').toMillis(), attempts: 3, status: 'open' },
    ],
  });
  const ms = (day: string): number => utc(day).toMillis();

  it('opens a hole for a complete unit not returned, never for the unit in progress', () => {
    const changes = holeChanges(
      plan,
      new Set(),
      [
        { startMs: ms('2024-03-08T00:00:00Z'), reason: 'r' },
        { startMs: ms('2024-03-10T00:00:00Z'), reason: 'r' },
      ],
      3,
    );
    expect(changes).toEqual([{ startMs: ms('2024-03-08T00:00:00Z'), status: 'open', attempts: 1, reason: 'r' }]);
  });

  it('counts another attempt on a stored hole, and confirms it absent once hole_retries later runs missed it', () => {
    const changes = holeChanges(
      plan,
      new Set(),
      [
        { startMs: ms('2024-03-07T00:00:00Z'), reason: 'r' },
        { startMs: ms('2024-03-06T00:00:00Z'), reason: 'r' },
      ],
      3,
    );
    expect(changes.map((c) => [c.attempts, c.status])).toEqual([
      [3, 'open'],
      [4, 'confirmed_absent'],
    ]);
  });

  it('fills a stored hole that came back', () => {
    expect(holeChanges(plan, new Set([ms('2024-03-07T00:00:00Z')]), [], 3)).toEqual([
      { startMs: ms('2024-03-07T00:00:00Z'), status: 'filled', attempts: 2, reason: '' },
    ]);
  });

  it("opens no hole on a day outside the object's activity, and closes a stored one there", () => {
    const quiet = { ...plan, active: { startMs: -Infinity, endMs: ms('2024-03-07T00:00:00Z') } };
    const changes = holeChanges(
      quiet,
      new Set(),
      [
        { startMs: ms('2024-03-07T00:00:00Z'), reason: 'r' },
        { startMs: ms('2024-03-08T00:00:00Z'), reason: 'r' },
        { startMs: ms('2024-03-05T00:00:00Z'), reason: 'r' },
      ],
      3,
    );
    expect(changes).toEqual([
      { startMs: ms('2024-03-07T00:00:00Z'), status: 'filled', attempts: 2, reason: '' },
      { startMs: ms('2024-03-05T00:00:00Z'), status: 'open', attempts: 1, reason: 'r' },
    ]);
  });

  it('waits for a tail of at most two days missing up to the last complete day, not for a longer one or a gap', () => {
    const missing = (...days: string[]) => days.map((d) => ({ startMs: ms(`${d}T00:00:00Z`) }));
    expect(laggingStart(plan, missing('2024-03-08', '2024-03-09', '2024-03-10'))).toBe(ms('2024-03-08T00:00:00Z'));
    expect(laggingStart(plan, missing('2024-03-07', '2024-03-08', '2024-03-09'))).toBeUndefined();
    expect(laggingStart(plan, missing('2024-03-08'))).toBeUndefined();
  });
});

describe('the watermark', () => {
  const cursor = (until: string, watermark?: string): CursorPlan =>
    planCursor({
      order: 'oldest_first',
      unit: 'day',
      maxUnits: 100,
      from: utc('2024-01-01T00:00:00Z'),
      until: utc(until),
      lookbackDays: 0,
      holes: [],
      ...(watermark ? { watermark: utc(watermark) } : {}),
    });

  it('advances only to the end of the last complete unit', () => {
    const plan = cursor('2024-03-10T15:00:00Z');
    const progress = new CursorProgress(plan, cursorWindows(plan));
    for (const w of cursorWindows(plan)) progress.finish(w.start.toMillis(), w.length);
    expect(iso(completeEnd(utc('2024-03-10T15:00:00Z'), 'day'))).toBe('2024-03-10T00:00:00Z');
    expect(new Date(progress.advance()!.watermarkMs).toISOString()).toBe('2024-03-10T00:00:00.000Z');
    expect(progress.finished).toBe(true);
  });

  it('moves only over a contiguous prefix of finished windows', () => {
    const plan = cursor('2024-12-31T00:00:00Z');
    expect(cursorWindows(plan).length).toBeGreaterThan(2);
    const progress = new CursorProgress(plan, cursorWindows(plan));
    progress.finish(cursorWindows(plan)[1]!.start.toMillis(), 100);
    expect(progress.advance()).toBeUndefined();
    progress.finish(cursorWindows(plan)[0]!.start.toMillis(), 66);
    expect(progress.advance()).toEqual({
      watermarkMs: cursorWindows(plan)[1]!.end.toMillis(),
      lowMs: cursorWindows(plan)[0]!.start.toMillis(),
      rows: 166,
    });
  });

  it('never moves backwards when a backfill ends earlier than the last run', () => {
    const plan = { ...cursor('2024-02-10T00:00:00Z'), watermarkMs: utc('2024-03-10T00:00:00Z').toMillis() };
    const progress = new CursorProgress(plan, cursorWindows(plan));
    for (const w of cursorWindows(plan)) progress.finish(w.start.toMillis());
    expect(progress.advance()).toBeUndefined();
  });

  it('settles a series whose watermark did not move once every window is finished, at the watermark it had', () => {
    const windows = planCursor({
      order: 'oldest_first',
      unit: 'day',
      maxUnits: 10,
      from: utc('2024-01-01T00:00:00Z'),
      until: utc('2024-02-10T00:00:00Z'),
      lookbackDays: 0,
      holes: [],
    });
    const plan = { ...windows, watermarkMs: utc('2024-03-10T00:00:00Z').toMillis() };
    const progress = new CursorProgress(plan, cursorWindows(plan));
    const [first, ...rest] = cursorWindows(plan);
    expect(rest.length).toBeGreaterThan(0);
    progress.finish(first!.start.toMillis(), 5);
    expect(progress.settle()).toBeUndefined();
    for (const w of rest) progress.finish(w.start.toMillis(), 1);
    expect(progress.settle()).toEqual({
      watermarkMs: utc('2024-03-10T00:00:00Z').toMillis(),
      lowMs: undefined,
      rows: 5 + rest.length,
    });
    expect(
      new CursorProgress(cursor('2024-02-10T00:00:00Z'), cursorWindows(cursor('2024-02-10T00:00:00Z'))).settle(),
    ).toBeUndefined();
  });

  it('refuses to finish a window it never planned', () => {
    expect(() =>
      new CursorProgress(cursor('2024-02-10T00:00:00Z'), cursorWindows(cursor('2024-02-10T00:00:00Z'))).finish(0),
    ).toThrow(/no planned window/);
  });
});

// ---- properties ------------------------------------------------------------------------------------------------------

const instantMs = fc.integer({
  min: utc('2015-01-01T00:00:00Z').toMillis(),
  max: utc('2035-01-01T00:00:00Z').toMillis(),
});
const ZONES = ['utc', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Chatham'];
const instant = fc.tuple(instantMs, fc.constantFrom(...ZONES)).map(([ms, zone]) => DateTime.fromMillis(ms, { zone }));
const unitArb = fc.constantFrom<Unit>('day', 'hour');

describe.each(['UTC', 'America/New_York'])('properties with the machine zone set to %s', (zone) => {
  useMachineZone(zone);

  it('plans from floor(from) to ceil(until), re-including exactly lookbackDays complete days before a watermark', () => {
    fc.assert(
      fc.property(
        unitArb,
        instant,
        instant,
        fc.option(instant, { nil: undefined }),
        fc.integer({ min: 0, max: 40 }),
        (unit, a, b, wm, lookbackDays) => {
          const [from, until] = a.toMillis() <= b.toMillis() ? [a, b] : [b, a];
          const watermark = wm === undefined ? undefined : floorUnit(wm, unit);
          const range = planRange({ unit, watermark, from, until, lookbackDays });
          if (range === undefined) {
            const start =
              watermark === undefined
                ? floorUnit(from, unit)
                : DateTime.max(floorUnit(from, unit), watermark.minus(lookbackDays * DAY));
            expect(ceilUnit(until, unit).toMillis()).toBeLessThanOrEqual(start.toMillis());
            return;
          }
          expect(range.start.zoneName).toBe('UTC');
          expect(range.end.toMillis()).toBe(ceilUnit(until, unit).toMillis());
          expect(range.end.toMillis() - until.toMillis()).toBeLessThan(unit === 'day' ? DAY : HOUR);
          if (watermark === undefined) expect(range.start.toMillis()).toBe(floorUnit(from, unit).toMillis());
          else if (watermark.toMillis() - lookbackDays * DAY >= floorUnit(from, unit).toMillis())
            expect(watermark.toMillis() - range.start.toMillis()).toBe(lookbackDays * DAY);
          else expect(range.start.toMillis()).toBe(floorUnit(from, unit).toMillis());
        },
      ),
    );
  });

  it('covers a contiguous range exactly as splitWindows does: the minimum, the oldest window short', () => {
    fc.assert(
      fc.property(
        unitArb,
        instant,
        fc.integer({ min: 1, max: 1500 }),
        fc.integer({ min: 1, max: 120 }),
        (unit, t, n, max) => {
          const start = floorUnit(t, unit);
          const range = { unit, start, end: addUnits(start, n, unit) };
          const covered = coverWindows(unit, [{ startMs: range.start.toMillis(), endMs: range.end.toMillis() }], max);
          expect(covered.map((w) => [w.start.toMillis(), w.end.toMillis(), w.length, w.endingAt])).toEqual(
            splitWindows(range, max).map((w) => [w.start.toMillis(), w.end.toMillis(), w.length, w.endingAt]),
          );
        },
      ),
    );
  });

  it('covers any set of units with the fewest windows, each within the maximum, every wanted unit exactly once', () => {
    fc.assert(
      fc.property(
        unitArb,
        instant,
        fc.uniqueArray(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 100 }),
        (unit, t, offsets, max) => {
          const size = unitMs(unit);
          const origin = floorUnit(t, unit).toMillis();
          const wanted = [...offsets].sort((x, y) => x - y);
          const windows = coverWindows(
            unit,
            wanted.map((o) => ({ startMs: origin + o * size, endMs: origin + (o + 1) * size })),
            max,
          );
          const covering = wanted.map(
            (o) =>
              windows.filter((w) => w.start.toMillis() <= origin + o * size && origin + o * size < w.end.toMillis())
                .length,
          );
          expect(covering.every((c) => c === 1)).toBe(true);
          for (const w of windows) expect(w.length).toBeLessThanOrEqual(max);
          // The greedy lower bound: walking from the oldest unit, a new window is needed whenever a unit lies max or more
          // units after the first unit of the current window.
          let needed = 0;
          let first = -Infinity;
          for (const o of wanted)
            if (o - first >= max) {
              needed++;
              first = o;
            }
          expect(windows.length).toBe(needed);
        },
      ),
    );
  });

  it('over random outages: every complete unit ends loaded or a hole, the watermark never passes one unrecorded, holes confirm after hole_retries runs', () => {
    const outage = fc.record({
      start: fc.integer({ min: 0, max: 200 }),
      length: fc.integer({ min: 1, max: 30 }),
      nights: fc.integer({ min: 1, max: 6 }),
    });
    fc.assert(
      fc.property(
        fc.array(outage, { maxLength: 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        (outages, lookbackDays, retries) => {
          const from = utc('2024-01-01T00:00:00Z');
          const missingOn = (day: number, night: number): boolean =>
            outages.some((o) => night < o.nights && day >= o.start && day < o.start + o.length);
          const loaded = new Set<number>();
          const holes = new Map<number, StoredHole>();
          let watermark: DateTime | undefined;
          for (let night = 0; night < 10; night++) {
            const until = from.plus({ days: 200 + night, hours: 6 });
            const plan = planCursor({
              order: 'oldest_first',
              unit: 'day',
              maxUnits: 100,
              from,
              until,
              lookbackDays,
              watermark,
              holes: [...holes.values()],
            });
            const progress = new CursorProgress(plan, cursorWindows(plan));
            for (const w of cursorWindows(plan)) {
              const returned = new Set<number>();
              const missing: { startMs: number; reason: string }[] = [];
              for (let ms = w.start.toMillis(); ms < w.end.toMillis(); ms += DAY) {
                if (!isWanted(plan, ms)) continue;
                if (missingOn((ms - from.toMillis()) / DAY, night)) missing.push({ startMs: ms, reason: 'outage' });
                else returned.add(ms);
              }
              for (const ms of returned) loaded.add(ms);
              for (const c of holeChanges(plan, returned, missing, retries)) {
                if (c.status === 'filled') holes.delete(c.startMs);
                else holes.set(c.startMs, { startMs: c.startMs, attempts: c.attempts, status: c.status });
              }
              progress.finish(w.start.toMillis());
            }
            const advanced = progress.advance();
            if (advanced) watermark = DateTime.fromMillis(advanced.watermarkMs, { zone: 'utc' });
            expect(progress.finished).toBe(true);
            // Below the watermark, every unit is loaded or recorded as a hole: nothing is skipped silently.
            for (let ms = from.toMillis(); ms < (watermark?.toMillis() ?? 0); ms += DAY)
              expect(loaded.has(ms) || holes.has(ms)).toBe(true);
            for (const h of holes.values()) expect(h.status === 'confirmed_absent').toBe(h.attempts > retries);
          }
          // Outages last at most 6 nights: a hole still open after 10 nights can only be one that stayed missing too long.
          for (const h of holes.values()) expect(h.status).toBe('confirmed_absent');
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('a backfill newest first', () => {
  const from = utc('2024-01-01T00:00:00Z');
  const first = (until: string, maxUnits = 30): CursorPlan =>
    planCursor({ order: 'newest_first', unit: 'day', maxUnits, from, until: utc(until), lookbackDays: 3, holes: [] });

  it('sends the same windows as oldest first, newest first', () => {
    const newest = first('2024-06-10T05:00:00Z');
    const oldest = planCursor({
      order: 'oldest_first',
      unit: 'day',
      maxUnits: 30,
      from,
      until: utc('2024-06-10T05:00:00Z'),
      lookbackDays: 3,
      holes: [],
    });
    expect(orderedWindows(newest).map((w) => iso(w.start))).toEqual(
      orderedWindows(oldest)
        .map((w) => iso(w.start))
        .reverse(),
    );
    expect(iso(orderedWindows(newest)[0]!.end)).toBe('2024-06-11T00:00:00Z');
  });

  it('records nothing until the newest window is in, then the block of windows touching it', () => {
    const plan = first('2024-06-10T05:00:00Z');
    const [newest, second, third] = orderedWindows(plan);
    const progress = new CursorProgress(plan, cursorWindows(plan));
    progress.finish(second!.start.toMillis(), 30);
    expect(progress.advance()).toBeUndefined();
    progress.finish(newest!.start.toMillis(), 11);
    // The high watermark stops at the last complete day, the low one at the oldest window of the block.
    expect(progress.advance()).toEqual({
      watermarkMs: utc('2024-06-10T00:00:00Z').toMillis(),
      lowMs: second!.start.toMillis(),
      rows: 41,
    });
    progress.finish(third!.start.toMillis(), 30);
    expect(progress.advance()).toEqual({
      watermarkMs: utc('2024-06-10T00:00:00Z').toMillis(),
      lowMs: third!.start.toMillis(),
      rows: 30,
    });
  });

  it('owes the days before the low watermark, and asks for them from there backwards with the look-back', () => {
    const plan = planCursor({
      order: 'newest_first',
      unit: 'day',
      maxUnits: 30,
      from,
      until: utc('2024-06-11T05:00:00Z'),
      lookbackDays: 3,
      holes: [],
      watermark: utc('2024-06-10T00:00:00Z'),
      lowWatermark: utc('2024-04-12T00:00:00Z'),
    });
    expect([
      iso(DateTime.fromMillis(plan.owed!.startMs, { zone: 'utc' })),
      iso(DateTime.fromMillis(plan.owed!.endMs, { zone: 'utc' })),
    ]).toEqual(['2024-01-01T00:00:00Z', '2024-04-12T00:00:00Z']);
    const windows = orderedWindows(plan);
    expect(windows.map((w) => [iso(w.start), w.length])).toEqual([
      ['2024-06-07T00:00:00Z', 5],
      ['2024-03-13T00:00:00Z', 30],
      ['2024-02-12T00:00:00Z', 30],
      ['2024-01-13T00:00:00Z', 30],
      ['2024-01-01T00:00:00Z', 12],
    ]);
    expect(isWanted(plan, utc('2024-02-01T00:00:00Z').toMillis())).toBe(true);
    expect(isWanted(plan, utc('2024-05-01T00:00:00Z').toMillis())).toBe(false);
    // The nightly window alone moves the high watermark; the owed windows lower the low one only as a block.
    const progress = new CursorProgress(plan, cursorWindows(plan));
    progress.finish(windows[2]!.start.toMillis());
    progress.finish(windows[0]!.start.toMillis());
    expect(progress.advance()).toEqual({
      watermarkMs: utc('2024-06-11T00:00:00Z').toMillis(),
      lowMs: utc('2024-04-12T00:00:00Z').toMillis(),
      rows: 0,
    });
    progress.finish(windows[1]!.start.toMillis());
    expect(progress.advance()).toEqual({
      watermarkMs: utc('2024-06-11T00:00:00Z').toMillis(),
      lowMs: windows[2]!.start.toMillis(),
      rows: 0,
    });
  });

  it('owes nothing to a series loaded before low watermarks were kept, nor when from is not before the low watermark', () => {
    const base = {
      order: 'newest_first' as const,
      unit: 'day' as const,
      maxUnits: 30,
      until: utc('2024-06-11T05:00:00Z'),
      lookbackDays: 3,
      holes: [],
      watermark: utc('2024-06-10T00:00:00Z'),
    };
    expect(planCursor({ ...base, from }).owed).toBeUndefined();
    expect(planCursor({ ...base, from, lowWatermark: from }).owed).toBeUndefined();
    const legacy = planCursor({ ...base, from });
    const progress = new CursorProgress(legacy, cursorWindows(legacy));
    for (const w of cursorWindows(legacy)) progress.finish(w.start.toMillis());
    expect(progress.advance()).toEqual({
      watermarkMs: utc('2024-06-11T00:00:00Z').toMillis(),
      lowMs: undefined,
      rows: 0,
    });
  });

  it('over random budgets, nights and outages: one contiguous loaded range ending at the newest complete day, every unit in it loaded or a hole, and in the end all of it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 12, maxLength: 12 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 5, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 220 }), { maxLength: 6 }),
        fc.boolean(),
        (budgets, lookbackDays, maxUnits, outageDays, moveUntil) => {
          const loaded = new Set<number>();
          const holes = new Map<number, StoredHole>();
          let state: { watermark: DateTime; lowWatermark?: DateTime } | undefined;
          let until = from.plus({ days: 200, hours: 6 });
          // The budgeted nights, then one without a budget.
          for (const [night, budget] of [...budgets, Infinity].entries()) {
            if (moveUntil && night > 0) until = until.plus({ days: 1 });
            const plan = planCursor({
              order: 'newest_first',
              unit: 'day',
              maxUnits,
              from,
              until,
              lookbackDays,
              holes: [...holes.values()],
              ...state,
            });
            const progress = new CursorProgress(plan, cursorWindows(plan));
            // The budget: the first `budget` windows of the night, in the order they are sent.
            for (const w of orderedWindows(plan).slice(0, budget)) {
              const returned = new Set<number>();
              const missing: { startMs: number; reason: string }[] = [];
              for (let ms = w.start.toMillis(); ms < w.end.toMillis(); ms += DAY) {
                if (!isWanted(plan, ms)) continue;
                if (night === 0 && outageDays.includes((ms - from.toMillis()) / DAY))
                  missing.push({ startMs: ms, reason: 'outage' });
                else returned.add(ms);
              }
              for (const ms of returned) loaded.add(ms);
              for (const c of holeChanges(plan, returned, missing, 3)) {
                if (c.status === 'filled') holes.delete(c.startMs);
                else holes.set(c.startMs, { startMs: c.startMs, attempts: c.attempts, status: c.status });
              }
              progress.finish(w.start.toMillis());
              const advanced = progress.advance();
              if (advanced)
                state = {
                  watermark: DateTime.fromMillis(advanced.watermarkMs, { zone: 'utc' }),
                  lowWatermark: DateTime.fromMillis(advanced.lowMs!, { zone: 'utc' }),
                };
            }
            expect(state).toBeDefined();
            // After every night: the range ends at the newest complete day, and nothing in it is skipped silently.
            expect(state!.watermark.toMillis()).toBe(completeEnd(until, 'day').toMillis());
            for (let ms = state!.lowWatermark!.toMillis(); ms < state!.watermark.toMillis(); ms += DAY)
              expect(loaded.has(ms) || holes.has(ms)).toBe(true);
          }
          // The night without a budget reached the start: the whole history asked is there.
          expect(state!.lowWatermark!.toMillis()).toBe(from.toMillis());
          for (let ms = from.toMillis(); ms < state!.watermark.toMillis(); ms += DAY)
            expect(loaded.has(ms) || holes.has(ms)).toBe(true);
        },
      ),
      { numRuns: 80 },
    );
  });
});
