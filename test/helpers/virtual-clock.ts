// A fake clock for whole runs against a real server: time stands still while any request is in flight and jumps to the
// earliest pending sleep only once none is, so a run's waits (limit windows, backoff) pass at once yet in the order and
// at the virtual times real time would give them.
import type { ClientEvent } from '../../src/api/api-client-options.js';

interface PendingSleep {
  until: number;
  resolve: () => void;
}

export class VirtualClock {
  #t: number;
  #inFlight = 0;
  #pending: PendingSleep[] = [];
  #checkQueued = false;
  /** Every sleep asked for, in milliseconds, in the order asked. */
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.#t = start;
  }

  readonly now = (): number => this.#t;

  /** Like the client's default sleep: rejects at once when `signal` aborts (a closing client). */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      const aborted = (): Error =>
        Object.assign(new Error('The operation was aborted', { cause: signal?.reason }), {
          name: 'AbortError',
          code: 'ABORT_ERR',
        });
      if (signal?.aborted) return reject(aborted());
      const entry: PendingSleep = {
        until: this.#t + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#pending = this.#pending.filter((p) => p !== entry);
        reject(aborted());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.push(entry);
      this.#queueCheck();
    });
  };

  /** Give it the client's events: it must know when requests are in flight. */
  readonly observe = (event: ClientEvent): void => {
    if (event.type === 'request-started') this.#inFlight += 1;
    if (event.type === 'request-finished') {
      this.#inFlight -= 1;
      this.#queueCheck();
    }
  };

  // Checked on the next turn of the event loop, so the work a finished request lets go (its worker's next request)
  // starts before time moves.
  #queueCheck(): void {
    if (this.#checkQueued) return;
    this.#checkQueued = true;
    setImmediate(() => {
      this.#checkQueued = false;
      if (this.#inFlight > 0 || this.#pending.length === 0) return;
      this.#pending.sort((a, b) => a.until - b.until);
      const next = this.#pending.shift()!;
      this.#t = Math.max(this.#t, next.until);
      next.resolve();
      this.#queueCheck();
    });
  }
}
