// When a run's committed progress is copied off the machine (with `--db s3://…`): at most once per interval, after a
// commit, one copy at a time; and once more when the run stops without publishing (flush), so a run on a new machine
// resumes where this one stopped. What a copy is (a checkpoint object beside the database) is the store's business.

/** How often, at most, a run uploads a checkpoint of its committed progress (`run --checkpoint-every`). */
export const DEFAULT_CHECKPOINT_EVERY_MS = 5 * 60_000;

/** What became of the progress a run committed when it stopped without publishing. */
export type KeptProgress =
  | { kept: true }
  /** `reason` says what is lost and why; the next run resumes from `resumesFrom` (the last checkpoint or the published database). */
  | { kept: false; reason: string; resumesFrom: string };

export class Checkpointer {
  readonly #everyMs: number;
  readonly #write: () => Promise<void>;
  #lastStartedAt: number;
  /** Something was committed by this run at all: its final flush is worth a copy (it also holds the run's own log entry). */
  #committedAny = false;
  #inFlight: Promise<void> | undefined;
  /** When the last copy that reached the store was taken. */
  #lastKeptAt: Date | undefined;
  /** The last periodic copy's failure, until one succeeds. */
  #lastError: unknown;

  /** `write` takes a consistent copy of everything committed and stores it; it is never called twice at once. */
  constructor(opts: { everyMs: number; write: () => Promise<void> }) {
    this.#everyMs = opts.everyMs;
    this.#write = opts.write;
    this.#lastStartedAt = Date.now();
  }

  /** When the last checkpoint that reached the store was taken, if one did in this run. */
  get lastKeptAt(): Date | undefined {
    return this.#lastKeptAt;
  }

  /** The last periodic checkpoint's failure, while no later one succeeded. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** A commit landed: copy it now when the interval has passed and no copy is under way, later otherwise. */
  committed(): void {
    this.#committedAny = true;
    if (this.#inFlight === undefined && Date.now() - this.#lastStartedAt >= this.#everyMs) {
      // A failed periodic copy is kept in lastError and tried again one interval later (a store down for a minute
      // must not stop the run: only the copy of its stop has to succeed).
      this.#start().catch(() => undefined);
    }
  }

  #start(): Promise<void> {
    const takenAt = new Date();
    this.#lastStartedAt = takenAt.getTime();
    const copy = this.#write().then(
      () => {
        this.#lastKeptAt = takenAt;
        this.#lastError = undefined;
      },
      (err: unknown) => {
        this.#lastError = err;
        throw err;
      },
    );
    this.#inFlight = copy
      .catch(() => undefined)
      .finally(() => {
        this.#inFlight = undefined;
      });
    return copy;
  }

  /** Wait for the copy under way, if any (before a publish, which replaces every checkpoint). */
  async settle(): Promise<void> {
    await this.#inFlight;
  }

  /** The run stops without publishing, after its last commit: copy everything it committed; throws when that fails. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.#committedAny) await this.#start();
  }
}
