// The default way the client waits: a timer that a closing client can cancel.
import { setTimeout as delay } from 'node:timers/promises';

/** Resolves after `ms` milliseconds; rejects at once if `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
}
