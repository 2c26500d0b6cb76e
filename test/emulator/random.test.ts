// The emulator's stable hash is its data: every value it serves derives from it, so a faster hash must give the very
// same numbers as String(part) hashed character by character, and a prefix hashed once must equal hashing it again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashNumberAfter, hashPrefix, hashUnit, hashUnitAfter, numberHasherAfter } from '../../src/emulator/random.js';

/** The definition: FNV-1a over String(part) for each part, then one mulberry32 step. */
function reference(seed: number, ...parts: (string | number)[]): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const part of parts) {
    const s = String(part);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
    h = Math.imul(h ^ 0x1f, 0x01000193) >>> 0;
  }
  let t = (h + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const part = fc.oneof(
  fc.string(),
  fc.integer({ min: 0, max: 99_999_999 }),
  fc.maxSafeNat(),
  fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
  fc.double(),
  fc.integer(),
);

describe('hashUnit', () => {
  it('hashes whole numbers as their decimal text, like any other part', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(part, { maxLength: 5 }), (seed, parts) => {
        expect(hashUnit(seed, ...parts)).toBe(reference(seed, ...parts));
      }),
      { numRuns: 5_000 },
    );
    for (const n of [0, -0, 9, 10, 1e8, 1e8 - 1, 1e8 + 1, Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, NaN, Infinity])
      expect(hashUnit(1, n)).toBe(reference(1, n));
  });

  it('hashes numbers next to a multiple of 10^4 (where its four-digit groups carry) as their decimal text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 1e4) }),
        fc.integer({ min: -1, max: 1 }),
        (k, d) => {
          const n = Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, k * 1e4 + d));
          expect(hashUnit(1, n)).toBe(reference(1, n));
        },
      ),
      { numRuns: 5_000 },
    );
    for (const n of [9_999, 10_000, 99_999_999, 100_000_000, 999_999_999_999, 1_000_000_000_000, 9_007_199_254_740_000])
      expect(hashUnit(1, n)).toBe(reference(1, n));
  });

  it('continues from a prefix exactly as if the prefix were hashed again', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(part, { maxLength: 3 }),
        fc.array(part, { maxLength: 3 }),
        (seed, head, tail) => {
          expect(hashUnitAfter(hashPrefix(seed, ...head), ...tail)).toBe(hashUnit(seed, ...head, ...tail));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('continues from a prefix with one whole number as hashUnit does with it as the last part', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(part, { maxLength: 3 }),
        fc.oneof(fc.maxSafeNat(), fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })),
        (seed, head, n) => {
          expect(hashNumberAfter(hashPrefix(seed, ...head), n)).toBe(reference(seed, ...head, n));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('hashes a run of numbers under one prefix as hashNumberAfter does each, whatever order they come in', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(part, { maxLength: 3 }),
        fc.array(
          fc.oneof(
            fc.maxSafeNat(),
            fc.integer({ min: 0, max: 99_999_999 }),
            fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }).map((h) => h * 1000),
            fc.integer({ min: 444_000, max: 528_000 }).map((h) => h * 3_600_000),
          ),
          { maxLength: 60 },
        ),
        (seed, head, ns) => {
          const prefix = hashPrefix(seed, ...head);
          const hasher = numberHasherAfter(prefix);
          for (const n of ns) expect(hasher(n)).toBe(hashNumberAfter(prefix, n));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
