// The rule of `lookback_days: auto` per stream and run: a fixed look-back as written, a probe every 7 days once
// something is stored, else the deepest restatement seen (99.9 % of them) plus 2 days, never above lookback_max_days.
import { describe, expect, it } from 'vitest';
import { effectiveLookback } from '../../src/pipeline/auto-lookback.js';

const UNTIL = new Date('2025-03-20T12:34:00Z');
const daysBefore = (n: number) => new Date(UNTIL.getTime() - n * 86_400_000);
const auto = { mode: 'auto', maxDays: 14 } as const;

describe('the effective look-back of a stream', () => {
  it('is the written number when fixed, whatever was seen', () => {
    expect(effectiveLookback({ mode: 'fixed', days: 3 }, { byAge: [{ ageDays: 9, changes: 5 }], stored: true }, UNTIL)).toMatchObject({ mode: 'fixed', days: 3, probe: false });
  });

  it('probes at lookback_max_days when something is stored and no probe was made in the last 7 days', () => {
    expect(effectiveLookback(auto, { byAge: [], stored: true }, UNTIL)).toMatchObject({ days: 14, probe: true });
    expect(effectiveLookback(auto, { byAge: [], stored: true, lastProbe: daysBefore(7) }, UNTIL)).toMatchObject({ days: 14, probe: true });
    expect(effectiveLookback(auto, { byAge: [], stored: true, lastProbe: daysBefore(6) }, UNTIL)).toMatchObject({ days: 2, probe: false });
    // A first run re-reads nothing: its probe would find nothing.
    expect(effectiveLookback(auto, { byAge: [], stored: false }, UNTIL)).toMatchObject({ days: 2, probe: false });
  });

  it('covers the restatements seen plus 2 days, capped at lookback_max_days', () => {
    const seen = { stored: true, lastProbe: daysBefore(1) };
    expect(effectiveLookback(auto, { ...seen, byAge: [{ ageDays: 2, changes: 40 }, { ageDays: 5, changes: 3 }] }, UNTIL)).toMatchObject({ days: 7, probe: false });
    const capped = effectiveLookback(auto, { ...seen, byAge: [{ ageDays: 20, changes: 1 }] }, UNTIL);
    expect(capped).toMatchObject({ days: 14, probe: false });
    expect(capped.reason).toContain('capped at lookback_max_days (14)');
  });
});
