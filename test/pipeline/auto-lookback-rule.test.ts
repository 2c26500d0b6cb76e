// The rule of `lookback_days: auto` per stream and run: a fixed look-back as written; a probe at lookback_max_days on the
// stream's own night of every 7 (a hash of its name), so the streams' probes spread over the week; else the deepest
// restatement seen (99.9 % of them) plus 2 days, never above lookback_max_days.
import { describe, expect, it } from 'vitest';
import {
  AUTO_LOOKBACK_PROBE_DAYS,
  effectiveLookback,
  isProbeNight,
  probeNight,
} from '../../src/pipeline/auto-lookback.js';
import { STREAM_NAMES, streamDeclaration } from '../../src/streams/registry.js';

const UNTIL = new Date('2025-03-20T12:34:00Z');
const DAY_MS = 86_400_000;
const daysBefore = (n: number, from: Date = UNTIL) => new Date(from.getTime() - n * DAY_MS);
const daysAfter = (n: number, from: Date = UNTIL) => new Date(from.getTime() + n * DAY_MS);
const auto = { mode: 'auto', maxDays: 14 } as const;
const SERIES_STREAMS = STREAM_NAMES.filter((n) => streamDeclaration(n).kind === 'series');

/** The first night at or after UNTIL that is (or is not) `stream`'s probe night. */
function night(stream: string, probe: boolean): Date {
  for (let d = 0; ; d++) if (isProbeNight(stream, daysAfter(d)) === probe) return daysAfter(d);
}

describe('the effective look-back of a stream', () => {
  it('is the written number when fixed, whatever was seen', () => {
    expect(
      effectiveLookback(
        'event_counts',
        { mode: 'fixed', days: 3 },
        { byAge: [{ ageDays: 9, changes: 5 }], stored: true },
        night('event_counts', true),
      ),
    ).toMatchObject({ mode: 'fixed', days: 3, probe: false });
  });

  it("probes at lookback_max_days on the stream's probe night once something is stored, and not on the other nights", () => {
    const on = night('sessions', true);
    expect(effectiveLookback('sessions', auto, { byAge: [], stored: true }, on)).toMatchObject({
      days: 14,
      probe: true,
    });
    expect(
      effectiveLookback('sessions', auto, { byAge: [], stored: true, lastProbe: daysBefore(7, on) }, on),
    ).toMatchObject({ days: 14, probe: true });
    expect(effectiveLookback('sessions', auto, { byAge: [], stored: true }, night('sessions', false))).toMatchObject({
      days: 2,
      probe: false,
    });
    // A first run re-reads nothing: its probe would find nothing.
    expect(effectiveLookback('sessions', auto, { byAge: [], stored: false }, on)).toMatchObject({
      days: 2,
      probe: false,
    });
    // A second run on the probe night's day (a re-run) does not probe again.
    expect(
      effectiveLookback(
        'sessions',
        auto,
        { byAge: [], stored: true, lastProbe: new Date(on.getTime() - 3_600_000) },
        on,
      ),
    ).toMatchObject({ probe: false });
  });

  it('probes a stream whose last probe is a week old, and one never probed whose runs span a week, on any night (weekly runs, a missed night)', () => {
    const off = night('kpis', false);
    expect(
      effectiveLookback('kpis', auto, { byAge: [], stored: true, lastProbe: daysBefore(7, off) }, off),
    ).toMatchObject({ probe: true });
    expect(
      effectiveLookback('kpis', auto, { byAge: [], stored: true, lastProbe: daysBefore(6, off) }, off),
    ).toMatchObject({ probe: false });
    expect(
      effectiveLookback('kpis', auto, { byAge: [], stored: true, firstRecorded: daysBefore(7, off) }, off),
    ).toMatchObject({ probe: true });
    expect(
      effectiveLookback('kpis', auto, { byAge: [], stored: true, firstRecorded: daysBefore(6, off) }, off),
    ).toMatchObject({ probe: false });
  });

  it("spreads the series streams' probes over the week: each probes once every 7 nights, always on its own night, and no night takes more than two", () => {
    expect(SERIES_STREAMS.length).toBeGreaterThanOrEqual(8);
    const lastProbe = new Map<string, Date>();
    const probesByNight: string[][] = [];
    for (let d = 0; d < 4 * AUTO_LOOKBACK_PROBE_DAYS; d++) {
      const until = daysAfter(d);
      const probing = SERIES_STREAMS.filter((stream) => {
        const probe = effectiveLookback(
          stream,
          auto,
          {
            byAge: [],
            stored: true,
            firstRecorded: UNTIL,
            ...(lastProbe.has(stream) ? { lastProbe: lastProbe.get(stream)! } : {}),
          },
          until,
        ).probe;
        if (probe) lastProbe.set(stream, until);
        return probe;
      });
      probesByNight.push(probing);
    }
    for (const stream of SERIES_STREAMS) {
      const nights = probesByNight.flatMap((streams, d) => (streams.includes(stream) ? [d] : []));
      expect(nights, stream).toHaveLength(4);
      expect(
        nights.slice(1).map((d, i) => d - nights[i]!),
        stream,
      ).toEqual([7, 7, 7]);
      expect(new Set(nights.map((d) => Math.floor(daysAfter(d).getTime() / DAY_MS) % 7)), stream).toEqual(
        new Set([probeNight(stream)]),
      );
    }
    expect(Math.max(...probesByNight.map((s) => s.length))).toBeLessThanOrEqual(2);
    expect(new Set(SERIES_STREAMS.map(probeNight)).size).toBeGreaterThanOrEqual(5);
  });

  it("keeps each stream's probe night from one version to the next: it is a hash of the name, not of the run or the order", () => {
    // Pinned: a different hash would move the probe night of every stream of every pipeline.
    expect(Object.fromEntries(SERIES_STREAMS.map((s) => [s, probeNight(s)]))).toMatchObject({
      event_counts: 6,
      kpis: 6,
      segment_size: 1,
      sessions: 0,
      canvas_summary: 3,
    });
  });

  it('covers the restatements seen plus 2 days, capped at lookback_max_days', () => {
    const until = night('event_counts', false);
    const seen = { stored: true, lastProbe: daysBefore(1, until) };
    expect(
      effectiveLookback(
        'event_counts',
        auto,
        {
          ...seen,
          byAge: [
            { ageDays: 2, changes: 40 },
            { ageDays: 5, changes: 3 },
          ],
        },
        until,
      ),
    ).toMatchObject({ days: 7, probe: false });
    const capped = effectiveLookback('event_counts', auto, { ...seen, byAge: [{ ageDays: 20, changes: 1 }] }, until);
    expect(capped).toMatchObject({ days: 14, probe: false });
    expect(capped.reason).toContain('capped at lookback_max_days (14)');
  });
});
