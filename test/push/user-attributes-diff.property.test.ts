// Property: whatever the acknowledged values and the new row, applying the object a push sends (by the rules of spec
// 2.2: set, null deletes, add/remove on a set-like array, inc on an integer) to the platform's state reaches the new row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TargetContext } from '../../src/push/push-target.js';
import type { Json, RowValues } from '../../src/push/row-values.js';
import { userAttributesTarget } from '../../src/push/targets/user-attributes-target.js';

const ctx: TargetContext = { mapping: { incColumns: ['points'], update: false, catalog: undefined }, bulk: false };
const NAMES = ['tier', 'city', 'tags', 'vip'] as const;

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c', 'gold'), fc.integer({ min: -3, max: 3 }), fc.boolean());
const value: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  scalar,
  fc.uniqueArray(fc.constantFrom('x', 'y', 'z', 'w'), { maxLength: 4 }),
);
const row: fc.Arbitrary<RowValues> = fc.record({
  tier: value,
  city: value,
  tags: value,
  vip: value,
  points: fc.integer({ min: 0, max: 1_000 }),
});

/** The platform's handling of one attributes object (spec 2.2), on a profile held as a plain record. */
function apply(profile: Record<string, Json>, object: Record<string, Json>): Record<string, Json> {
  const next = { ...profile };
  for (const [key, v] of Object.entries(object)) {
    if (key === 'external_id') continue;
    if (v === null) delete next[key];
    else if (typeof v === 'object' && !Array.isArray(v) && 'inc' in v)
      next[key] = ((next[key] as number | undefined) ?? 0) + (v.inc as number);
    else if (typeof v === 'object' && !Array.isArray(v)) {
      let list = Array.isArray(next[key]) ? [...(next[key] as Json[])] : [];
      for (const a of (v.add as Json[] | undefined) ?? []) list = [...list.filter((x) => x !== a), a];
      list = list.filter((x) => !((v.remove as Json[] | undefined) ?? []).includes(x));
      next[key] = list;
    } else next[key] = v;
  }
  return next;
}

/** The profile a source row should leave: NULL means absent; arrays compared as sets; points = others' share + total. */
function expected(values: RowValues, pointsBefore: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of NAMES) {
    const v = values[name];
    if (v !== null) out[name] = Array.isArray(v) ? [...v].sort() : v;
  }
  out['points'] = pointsBefore + (values['points'] as number);
  return out;
}

function normalize(profile: Record<string, Json>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(profile).map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v]));
}

describe('user-attributes diff', () => {
  it('the object sent turns the acknowledged profile into the new row, and sends nothing when nothing changed', () => {
    fc.assert(
      fc.property(row, row, fc.integer({ min: 0, max: 50 }), (acked, next, pointsBefore) => {
        // The platform holds the acknowledged values (NULLs absent) plus what other sources added to the total.
        const profile: Record<string, Json> = {};
        for (const name of NAMES) if (acked[name] !== null) profile[name] = acked[name]!;
        profile['points'] = pointsBefore + (acked['points'] as number);
        const source = { index: 0, destination: 'users', key: 'external_id:u1', values: next };
        const change = userAttributesTarget.plan(source, acked, ctx);
        const after = change ? apply(profile, change.payload as Record<string, Json>) : profile;
        expect(normalize(after)).toEqual(expected(next, pointsBefore));
        // Pushing the new row again, once acknowledged, sends nothing.
        expect(userAttributesTarget.plan(source, next, ctx)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
