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
 * are hashed digit by digit without building their string, and the finishing step is inlined.
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

function absorbNumber(h: number, part: number): number {
  if (part < 1e8) h = hashDigits(h, part, false);
  else {
    const low = part % 1e8;
    h = hashDigits(hashDigits(h, (part - low) / 1e8, false), low, true);
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

/** FNV-1a over the decimal digits of a whole number n < 10^8, all eight of them when `padded` (the low half of a larger one). */
function hashDigits(h: number, n: number, padded: boolean): number {
  let started = padded;
  for (let div = 10_000_000; div >= 1; div = (div / 10) | 0) {
    const digit = ((n / div) | 0) % 10;
    if (digit !== 0 || started || div === 1) {
      started = true;
      h ^= 48 + digit;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h;
}

/** Pick one element deterministically. */
export function pick<T>(rng: () => number, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new RangeError('pick: empty list');
  return item;
}
