// Deterministic randomness for the seeded workspace: a small PRNG and a stable hash of (seed, parts) → [0, 1),
// so any value (a user's name, an hour's purchases) can be computed on demand without storing it.

/** mulberry32: a fast 32-bit PRNG; same seed, same sequence. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * FNV-1a over the parts (each as `String(part)` writes it), finished with a mulberry32 step: a stable value in [0, 1) for
 * (seed, ...parts). Hot: the emulator calls it for every unit of every series it serves, so whole numbers (epoch ms)
 * are hashed four digits at a time from a table, without building their string.
 */
export function hashUnit(seed: number, ...parts: (string | number)[]): number {
  return finish(absorbAll((0x811c9dc5 ^ seed) >>> 0, parts));
}

/**
 * The hash state after (seed, ...parts), for a caller that hashes many values under one prefix:
 * `hashUnitAfter(hashPrefix(seed, a, b), c)` equals `hashUnit(seed, a, b, c)`, without hashing `a` and `b` again.
 */
export function hashPrefix(seed: number, ...parts: (string | number)[]): number {
  return absorbAll((0x811c9dc5 ^ seed) >>> 0, parts);
}

/** {@link hashUnit} of the prefix's parts followed by `parts`. */
export function hashUnitAfter(prefix: number, ...parts: (string | number)[]): number {
  return finish(absorbAll(prefix, parts));
}

/**
 * {@link hashUnitAfter} of one whole number n ≥ 0 (an instant in epoch ms, say): the hot path of the hourly models, with
 * no array for the parts.
 */
export function hashNumberAfter(prefix: number, n: number): number {
  return finish(absorbNumber(prefix, n));
}

/**
 * {@link hashNumberAfter} under one prefix, for the hours of a series: consecutive instants share all but their last eight
 * digits for a day or more, so the state after those digits is kept from the previous number while they agree.
 */
export function numberHasherAfter(prefix: number): (n: number) => number {
  let high = -1;
  let afterHigh = prefix;
  return (n) => {
    if (n < 1e8) return hashNumberAfter(prefix, n);
    const q2 = Math.floor(n / 1e8);
    if (q2 !== high) {
      const q3 = Math.floor(q2 / 1e4);
      afterHigh = q3 === 0 ? absorbLeading(prefix, q2) : absorbGroup(absorbLeading(prefix, q3), q2 - q3 * 1e4);
      high = q2;
    }
    const low = n - q2 * 1e8;
    const q1 = Math.floor(low / 1e4);
    const h = absorbGroup(absorbGroup(afterHigh, q1), low - q1 * 1e4) ^ 0x1f;
    return finish(Math.imul(h, 0x01000193) >>> 0);
  };
}

function absorbNumber(h: number, n: number): number {
  // Four-digit groups, most significant first; only the leading group drops its leading zeros. A safe integer has at
  // most sixteen digits, so it splits into at most four groups; ⌊n / 10⁴⌋ in floating point is exact below 2^53 (the
  // rounding error of the quotient is less than its distance to the next whole number).
  const q1 = Math.floor(n / 1e4);
  if (q1 === 0) h = absorbLeading(h, n);
  else {
    const q2 = Math.floor(q1 / 1e4);
    if (q2 === 0) h = absorbLeading(h, q1);
    else {
      const q3 = Math.floor(q2 / 1e4);
      if (q3 === 0) h = absorbLeading(h, q2);
      else h = absorbGroup(absorbLeading(h, q3), q2 - q3 * 1e4);
      h = absorbGroup(h, q1 - q2 * 1e4);
    }
    h = absorbGroup(h, n - q1 * 1e4);
  }
  h ^= 0x1f;
  return Math.imul(h, 0x01000193) >>> 0;
}

function absorbAll(h: number, parts: readonly (string | number)[]): number {
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as string | number;
    if (typeof part === 'number' && Number.isSafeInteger(part) && part >= 0) {
      h = absorbNumber(h, part);
      continue;
    }
    const s = String(part);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= 0x1f;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The first output of createRng(h). */
function finish(h: number): number {
  let t = (h + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Character codes of the four decimal digits of 0000 to 9999, four per number: a digit costs a lookup, not a division. */
const DIGITS = new Uint8Array(40_000);
for (let n = 0; n < 10_000; n++) {
  DIGITS[4 * n] = 48 + Math.floor(n / 1000);
  DIGITS[4 * n + 1] = 48 + (Math.floor(n / 100) % 10);
  DIGITS[4 * n + 2] = 48 + (Math.floor(n / 10) % 10);
  DIGITS[4 * n + 3] = 48 + (n % 10);
}

/** FNV-1a over the four digits of g < 10⁴, leading zeros included (a group after the leading one). */
function absorbGroup(h: number, g: number): number {
  const i = 4 * g;
  h = Math.imul(h ^ DIGITS[i]!, 0x01000193);
  h = Math.imul(h ^ DIGITS[i + 1]!, 0x01000193);
  h = Math.imul(h ^ DIGITS[i + 2]!, 0x01000193);
  return Math.imul(h ^ DIGITS[i + 3]!, 0x01000193) >>> 0;
}

/** FNV-1a over the digits of g < 10⁴ as written, without leading zeros ("0" for zero). */
function absorbLeading(h: number, g: number): number {
  const i = 4 * g;
  if (g >= 1000) h = Math.imul(h ^ DIGITS[i]!, 0x01000193);
  if (g >= 100) h = Math.imul(h ^ DIGITS[i + 1]!, 0x01000193);
  if (g >= 10) h = Math.imul(h ^ DIGITS[i + 2]!, 0x01000193);
  return Math.imul(h ^ DIGITS[i + 3]!, 0x01000193) >>> 0;
}

/** Pick one element deterministically. */
export function pick<T>(rng: () => number, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new RangeError('pick: empty list');
  return item;
}
