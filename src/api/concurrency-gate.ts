// Caps the requests on the wire at once across all pools. A request takes its pool's budget first, then a place here,
// so a pool waiting for its window holds no place that another pool could use.

/** A counting semaphore with a FIFO queue. */
export class ConcurrencyGate {
  readonly #max: number;
  #active = 0;
  readonly #queue: (() => void)[] = [];

  constructor(max: number) {
    this.#max = max;
  }


  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      // The place passes straight to the next waiter, so `active` stays counted.
      if (next) next();
      else this.#active--;
    }
  }
}
