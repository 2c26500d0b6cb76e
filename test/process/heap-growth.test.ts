// The CLI's heap policy (src/process/heap-growth.ts): it bounds V8's heap growth unless the user chose a growth. Its
// effect on memory is measured by the bench's demo rows (a churn small enough for a test varied more than the bound).
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/process/heap-growth.js';

describe('the CLI heap policy', () => {
  it('sets the heap growth when the user chose none', () => {
    expect(boundHeapGrowth(['--enable-source-maps'], '--max-semi-space-size=16')).toBe(true);
  });

  it('leaves a growth chosen on the command line or in NODE_OPTIONS in place', () => {
    expect(boundHeapGrowth(['--heap-growing-percent=300'], '')).toBe(false);
    expect(boundHeapGrowth([], '--import x.mjs --heap_growing_percent=20')).toBe(false);
  });
});
