// `ending_at` and `starting_at` are read in nearly every request: the quick reading of the plain UTC form must give the
// very instant (or the very refusal) that the full ISO 8601 reading gives.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { instantParam } from '../../src/emulator/analytics/query-params.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function full(text: string): number | 'refused' {
  const dt = DateTime.fromISO(text, { zone: 'utc' });
  return dt.isValid ? dt.toMillis() : 'refused';
}

function read(text: string): number | 'refused' {
  try {
    return instantParam(new URLSearchParams({ ending_at: text }), 'ending_at')!;
  } catch {
    return 'refused';
  }
}

describe('instantParam', () => {
  it('reads YYYY-MM-DDTHH:MM:SSZ, impossible dates and times included, as luxon reads it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        (y, mo, d, h, mi, s) => {
          const text = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}Z`;
          expect(read(text)).toBe(full(text));
        },
      ),
      { numRuns: 20_000 },
    );
    for (const text of ['2024-02-29T23:59:59Z', '2023-02-29T00:00:00Z', '1970-01-01T00:00:00Z', '2026-11-01T24:00:00Z'])
      expect(read(text)).toBe(full(text));
  });
});
