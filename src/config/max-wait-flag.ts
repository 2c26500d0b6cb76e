// The --max-wait flag of `run` and `push`: how long a pool may wait for the server's rate-limit window before the
// command fails instead (a far-future X-RateLimit-Reset once hung a run for ever).
import { MAX_WAIT_LIMIT_MS } from '../api/limiter.js';
import { ConfigError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * Milliseconds from `90`, `90s`, `5m`, `5min`, `2h` or `1h30m` (a bare number is seconds), from 0 to 24 h; undefined when
 * the flag is absent (each pool then allows its own window plus five minutes).
 */
export function parseMaxWait(raw: string | undefined, flag = '--max-wait'): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim().toLowerCase();
  const parts = /^\d+(\.\d+)?$/.test(text)
    ? [[text, text, 's']]
    : [...text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|min|s|m|h)/g)].map((m) => [m[0], m[1], m[2]]);
  const whole = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || whole.replace(/\s+/g, '') !== text.replace(/\s+/g, '')) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} is not a duration; write e.g. 90s, 10m, 2h or 1h30m (a bare number is seconds)`,
    );
  }
  const ms = Math.round(parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNIT_MS[unit as string] as number), 0));
  if (ms > MAX_WAIT_LIMIT_MS) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} is longer than 24h; a run should fail and be retried rather than wait that long — give at most 24h`,
    );
  }
  return ms;
}
