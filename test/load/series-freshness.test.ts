// Freshness is measured against the last unit that could be complete: what `status`, `--fail-if-stale` and
// analytics.freshness call "behind".
import { describe, expect, it } from 'vitest';
import { behindMs, completableEnd } from '../../src/load/series-freshness.js';

const utc = (iso: string) => new Date(`${iso}Z`);
const HOUR = 3_600_000;

describe('behindMs', () => {
  it("calls a daily series whose watermark is today's 00:00 UTC current, at any time of the day", () => {
    for (const at of ['2026-11-26T00:00:00', '2026-11-26T10:51:00', '2026-11-26T23:59:59']) {
      expect(behindMs('day', utc('2026-11-26T00:00:00'), utc(at)), at).toBe(0);
    }
  });

  it('counts the complete days a daily series does not hold yet, not the hours of today', () => {
    expect(behindMs('day', utc('2026-11-25T00:00:00'), utc('2026-11-26T14:30:00'))).toBe(24 * HOUR);
    expect(behindMs('day', utc('2026-11-23T00:00:00'), utc('2026-11-26T00:00:01'))).toBe(72 * HOUR);
  });

  it('measures an hourly series against the start of the current hour', () => {
    expect(behindMs('hour', utc('2026-11-26T14:00:00'), utc('2026-11-26T14:59:00'))).toBe(0);
    expect(behindMs('hour', utc('2026-11-26T12:00:00'), utc('2026-11-26T14:10:00'))).toBe(2 * HOUR);
  });

  it('ages a snapshot from the instant it was taken as of', () => {
    expect(behindMs('snapshot', utc('2026-11-26T10:00:00'), utc('2026-11-26T14:30:00'))).toBe(4.5 * HOUR);
  });

  it('is never negative: a watermark ahead of the last completable unit is current', () => {
    expect(behindMs('day', utc('2026-11-27T00:00:00'), utc('2026-11-26T14:30:00'))).toBe(0);
  });
});

describe('completableEnd', () => {
  it('is the start of the unit in progress', () => {
    expect(completableEnd('day', utc('2026-11-26T14:30:00'))).toEqual(utc('2026-11-26T00:00:00'));
    expect(completableEnd('hour', utc('2026-11-26T14:30:00'))).toEqual(utc('2026-11-26T14:00:00'));
  });
});
