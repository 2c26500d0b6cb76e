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

  /** Waits for a place; the function it resolves with gives the place back (once, however often it is called). */
  async enter(): Promise<() => void> {
    if (this.#active >= this.#max) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#active++;
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#queue.shift();
      // The place passes straight to the next waiter, so `active` stays counted.
      if (next) next();
      else this.#active--;
    };
  }
}
