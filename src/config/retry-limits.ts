// The pipeline file's `retries:` key: how hard a run insists on a failing request before it gives up. Read here so the
// loader only delegates, and so the advice of a give-up message can name exactly these fields.

/** Retry limits of a run's API client. */
export interface RetryLimits {
  /** Attempts per request, the first one included. @default 6 */
  maxAttempts: number;
  /** Total seconds one request may spend waiting between its retries. @default 120 */
  maxWaitSeconds: number;
}

export const DEFAULT_RETRY_LIMITS: RetryLimits = { maxAttempts: 6, maxWaitSeconds: 120 };

/** The advice a give-up message ends with in `run`: the pipeline-file fields that raise the limits. */
export const RUN_RETRY_ADVICE = 'raise retries.max_attempts / retries.max_wait_seconds in the pipeline file';

const KEYS = ['max_attempts', 'max_wait_seconds'] as const;

/**
 * Validates the raw `retries` value; `fail(path, message, atKey)` throws the loader's ConfigError at that field.
 * Bounds keep a typo from turning a nightly run into a day-long one.
 */
export function readRetryLimits(value: unknown, fail: (path: (string | number)[], message: string, atKey?: boolean) => never): RetryLimits {
  if (value === undefined || value === null) return DEFAULT_RETRY_LIMITS;
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    fail(['retries'], 'must be a mapping; e.g. retries: { max_attempts: 6, max_wait_seconds: 120 }');
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!(KEYS as readonly string[]).includes(key)) fail(['retries', key], `unknown key in retries ${JSON.stringify(key)}; use ${KEYS.join(' or ')}`, true);
  }
  return {
    maxAttempts: whole(obj['max_attempts'], 'max_attempts', 1, 20, DEFAULT_RETRY_LIMITS.maxAttempts, fail),
    maxWaitSeconds: whole(obj['max_wait_seconds'], 'max_wait_seconds', 0, 86_400, DEFAULT_RETRY_LIMITS.maxWaitSeconds, fail),
  };
}

function whole(value: unknown, key: string, min: number, max: number, fallback: number, fail: (path: string[], message: string) => never): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(['retries', key], `${JSON.stringify(value)} is not a whole number from ${min} to ${max}; e.g. ${key}: ${fallback}`);
  }
  return value;
}
