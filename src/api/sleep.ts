// The default way the client waits: a timer that a closing client can cancel, safe for any length (Node's timers fire at
// once, with a TimeoutOverflowWarning, past 2^31-1 ms, which turned a far-future rate-limit reset into a busy loop).
import { setTimeout as delay } from 'node:timers/promises';

/** Longest single timer Node accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves after `ms` milliseconds; rejects at once if `signal` aborts first. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  let left = Number.isFinite(ms) ? Math.max(0, ms) : MAX_TIMER_MS;
  do {
    const step = Math.min(left, MAX_TIMER_MS);
    await delay(step, undefined, signal ? { signal } : undefined);
    left -= step;
  } while (left > 0);
}
