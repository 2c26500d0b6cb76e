// The pipeline file's `retries:` key: how hard a run insists on a failing request before it gives up. Its defaults, keys and
// bounds live here, so the advice of a give-up message and the JSON Schema name exactly these fields.

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

/** The keys of `retries:` and their bounds (the loader reads them). */
export const RETRY_KEYS = ['max_attempts', 'max_wait_seconds'] as const;
export const RETRY_BOUNDS: Readonly<Record<(typeof RETRY_KEYS)[number], { min: number; max: number }>> = {
  max_attempts: { min: 1, max: 20 },
  max_wait_seconds: { min: 0, max: 86_400 },
};
