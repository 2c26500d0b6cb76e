// SIGINT and SIGTERM turned into one orderly stop. Supervisors send more than one (`timeout`, systemd and container
// runtimes often repeat SIGTERM within a second, a person presses Ctrl-C twice): the first aborts the work, every later
// one is only acknowledged, so the run always ends the same way — what was fetched committed, the lock released, the
// database closed, one result printed. `kill -9` remains the way to quit at once; the next run takes over its lock.

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
// Supervisors repeat a signal within a second or two; a burst that outlives the work ends in this window.
const SETTLE_MS = 3000;

export class StopSignals {
  readonly #abort = new AbortController();
  readonly #onRepeat: (signal: NodeJS.Signals) => void;
  readonly #onFirst: (signal: NodeJS.Signals) => void;
  readonly #listener = (signal: NodeJS.Signals): void => {
    if (this.#abort.signal.aborted) {
      this.#onRepeat(signal);
      return;
    }
    this.#abort.abort();
    this.#onFirst(signal);
  };

  private constructor(onFirst: (signal: NodeJS.Signals) => void, onRepeat: (signal: NodeJS.Signals) => void) {
    this.#onFirst = onFirst;
    this.#onRepeat = onRepeat;
  }

  /**
   * Listens for SIGINT and SIGTERM until `dispose()`; while it listens, no signal ends the process by itself.
   * @param onFirst told of the signal that aborted `signal`
   * @param onRepeat told of each signal after the first
   */
  static install(onFirst: (signal: NodeJS.Signals) => void, onRepeat: (signal: NodeJS.Signals) => void = () => undefined): StopSignals {
    const stop = new StopSignals(onFirst, onRepeat);
    for (const s of STOP_SIGNALS) process.on(s, stop.#listener);
    return stop;
  }

  /** Aborted by the first signal. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * The work is over and its result told: signals of the same burst that are still arriving are ignored for
   * `graceMs` (the process is ending by itself with its own exit code; killed by one of them, it would end with none),
   * then a signal has its default effect again. The timer does not keep the process alive. Safe to call twice.
   */
  dispose(graceMs = SETTLE_MS): void {
    const ignore = (): void => undefined;
    for (const s of STOP_SIGNALS) {
      process.off(s, this.#listener);
      process.on(s, ignore);
    }
    setTimeout(() => {
      for (const s of STOP_SIGNALS) process.off(s, ignore);
    }, graceMs).unref();
  }
}
