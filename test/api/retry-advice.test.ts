// Which server advice a retry follows: X-RateLimit-Reset (the end of the pool's window) counts for a 429, not a 5xx.
import { describe, expect, it } from 'vitest';
import { readRetryAfterMs } from '../../src/api/rate-limit-headers.js';

const headers = (h: Record<string, string>) => new Headers(h);

describe('readRetryAfterMs', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  const inAnHour = String(Math.floor(now / 1000) + 3600);

  it('reads Retry-After first, in seconds or as an HTTP date', () => {
    expect(readRetryAfterMs(headers({ 'Retry-After': '2', 'X-RateLimit-Reset': inAnHour }), now)).toBe(2000);
    expect(readRetryAfterMs(headers({ 'retry-after': new Date(now + 5000).toUTCString() }), now)).toBe(5000);
  });

  it('falls back to X-RateLimit-Reset for a 429 and ignores it for a 5xx', () => {
    expect(readRetryAfterMs(headers({ 'X-RateLimit-Reset': inAnHour }), now)).toBe(3_600_000);
    expect(readRetryAfterMs(headers({ 'X-RateLimit-Reset': inAnHour }), now, false)).toBeUndefined();
    expect(readRetryAfterMs(headers({ 'Retry-After': '3' }), now, false)).toBe(3000);
  });
});
