// SIGINT and SIGTERM turned into one orderly stop. Supervisors send more than one (`timeout`, systemd and container
// runtimes often repeat SIGTERM within a second, a person presses Ctrl-C twice): the first aborts the work, every later
// one is only acknowledged, so the run always ends the same way — what was fetched committed, the lock released, the
// database closed, one result printed. `kill -9` remains the way to quit at once; the next run takes over its lock.

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
// Supervisors repeat a signal within a second or two; a burst that outlives the work ends in this window.
const SETTLE_MS = 3000;
let received = false;

/**
 * Whether this process was sent SIGINT or SIGTERM while listening. Such a process must end with an explicit exit: one
 * that ends by draining its event loop first closes its signal handlers, and a signal of the same burst arriving in
 * that last moment kills it with no exit code (measured: always, under a stream of signals).
 */
export function stopSignalReceived(): boolean {
  return received;
}

export class StopSignals {
  readonly #abort = new AbortController();
  readonly #onRepeat: (signal: NodeJS.Signals) => void;
  readonly #onFirst: (signal: NodeJS.Signals) => void;
  readonly #listener = (signal: NodeJS.Signals): void => {
    received = true;
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
  static install(
    onFirst: (signal: NodeJS.Signals) => void,
    onRepeat: (signal: NodeJS.Signals) => void = () => undefined,
  ): StopSignals {
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
    const ignore = (): void => {
      received = true;
    };
    // The ignoring listener goes on before the live one comes off: removing a signal's last listener hands the signal
    // back to the OS's default (ending the process), and a signal arriving between the two calls would kill it.
    for (const s of STOP_SIGNALS) {
      process.on(s, ignore);
      process.off(s, this.#listener);
    }
    setTimeout(() => {
      for (const s of STOP_SIGNALS) process.off(s, ignore);
    }, graceMs).unref();
  }
}
