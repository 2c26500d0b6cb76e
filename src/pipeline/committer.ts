// Serializes commits to DuckDB and batches whatever arrived while the previous commit ran, so fetched parts land in bulk
// and in the order they were handed over: a watermark is never committed before the rows it covers. Fetching goes on
// while a batch commits, and the next batch is converted for DuckDB meanwhile; a producer waits only when the rows
// after that batch are too many, and then only until they are taken.
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { CommitResult, HoleUpdate, LoadBatch, PreparedCommit, SeriesStateUpdate, Warehouse } from '../load/warehouse.js';

/** Rows with the watermarks and hole changes they allow: committed together, in one transaction. */
export interface CommitPart extends ExtractedRows {
  state: SeriesStateUpdate[];
  holes: HoleUpdate[];
}

/**
 * Rows waiting for the next commit before producers are made to wait until that commit takes them (keeps memory flat on
 * long backfills). At most this many rows wait, one commit's batch is being written, and each request in flight holds
 * its own window. Measured with `npm run bench` (1M rows): 100,000 peaked at 403 MB RSS, 25,000 at 279 MB, at the same
 * load rate; with the warehouse's 64 MB DuckDB memory limit, 10,000 peaked at 254 MB (1M rows) and 287 MB (10M rows).
 * Now that the next batch is converted while one writes (see `add`), the process holds the batch being written, the
 * next one converted, and at most this many rows behind them: at 20,000 (and MIN_COMMIT_ROWS 20,000) the bench's 1M
 * rows peaked at 290–293 MB, at 30,000 at 286–336 MB; 15,000 peaked lower but cost the demo's first run 2–4 s.
 */
export const MAX_PENDING_ROWS = 20_000;

/**
 * Rows a commit gathers before it starts, unless drained: a commit costs a few statements per table whatever its size,
 * and the change-detecting join scans the stored table once per batch, so 100-row commits (one window each) made the
 * demo's first run spend more time in DuckDB than fetching. Measured on the demo's wide Canvas and campaign tables:
 * 5,000-row commits cost about 20 µs a row, 12,000 about 13, 34,000 about 11; the first `npm start` went from 83 s to
 * 76 s when commits grew from 5,000 to 20,000. Parts wait at most MAX_COMMIT_DELAY_MS.
 */
export const MIN_COMMIT_ROWS = 20_000;

/** The longest a fetched part waits for MIN_COMMIT_ROWS to gather: a slow run still commits (and shows) its progress. */
export const MAX_COMMIT_DELAY_MS = 250;

export class Committer {
  readonly #wh: Warehouse;
  readonly #runId: string;
  readonly #until: Date | undefined;
  readonly #onCommit: (result: CommitResult) => void;
  #pending: CommitPart[] = [];
  #pendingRows = 0;
  #loop: Promise<void> | undefined;
  #error: unknown;
  // Producers waiting for the loop to take the pending rows (or to end).
  #waitingForTake: (() => void)[] = [];
  // Commit whatever is pending, however small (set while drain() runs).
  #draining = false;
  // When the oldest pending part arrived (epoch ms), and the timer that commits it once MAX_COMMIT_DELAY_MS passed.
  #oldestAt = 0;
  #timer: NodeJS.Timeout | undefined;
  // True while a batch is being written; the next batch, taken and converted meanwhile, waits in #next.
  #writing = false;
  #next: PreparedCommit | undefined;

  /** `until`: the run's frozen upper bound, to audit restated values (see LoadBatch.until). */
  constructor(wh: Warehouse, runId: string, onCommit: (result: CommitResult) => void, until?: Date) {
    this.#wh = wh;
    this.#runId = runId;
    this.#until = until;
    this.#onCommit = onCommit;
  }

  /**
   * Queue a part, committed once MIN_COMMIT_ROWS rows wait, it waited MAX_COMMIT_DELAY_MS, or at `drain()`; resolves at once unless more than
   * MAX_PENDING_ROWS rows wait for the next commit, then as soon as that commit takes them (not when it is done:
   * fetching goes on while it writes).
   */
  async add(part: CommitPart): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    if (this.#pending.length === 0) this.#oldestAt = Date.now();
    this.#pending.push(part);
    this.#pendingRows += part.upserts.reduce((n, u) => n + u.rows.length, 0);
    if (this.#pendingRows >= MIN_COMMIT_ROWS) this.#start();
    else this.#schedule();
    // While DuckDB writes a batch, the next one is checked and converted here: that work no longer waits for the write
    // to end and then delays the next one (the demo's first run spent about 7 s so).
    if (this.#writing && this.#next === undefined && this.#pendingRows >= MIN_COMMIT_ROWS && this.#error === undefined) {
      try {
        this.#next = this.#wh.prepareCommit(this.#take());
      } catch (err) {
        this.#error = err;
      }
    }
    while (this.#pendingRows > MAX_PENDING_ROWS && this.#loop) await new Promise<void>((resolve) => this.#waitingForTake.push(resolve));
  }

  /** The pending parts as one batch; producers waiting for room are let go. */
  #take(): LoadBatch {
    const parts = this.#pending;
    this.#pending = [];
    this.#pendingRows = 0;
    this.#wakeProducers();
    return toBatch(this.#runId, parts, this.#until);
  }

  /** Commit everything queued; rethrows a commit failure. */
  async drain(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#draining = true;
    try {
      if (this.#error === undefined && this.#pending.length > 0) this.#start();
      while (this.#loop) await this.#loop;
    } finally {
      this.#draining = false;
    }
    if (this.#error !== undefined) throw this.#error;
  }

  /** Starts the loop once the oldest pending part has waited MAX_COMMIT_DELAY_MS, unless it runs or is due anyway. */
  #schedule(): void {
    if (this.#loop || this.#timer || this.#pending.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#start();
    }, Math.max(0, this.#oldestAt + MAX_COMMIT_DELAY_MS - Date.now()));
    this.#timer.unref();
  }

  /**
   * Starts the commit loop unless it runs. `#loop` is set before the loop can end and cleared only after it has: a loop
   * with nothing due ends at once, and clearing it inside would leave a finished promise standing for a running loop.
   */
  #start(): void {
    if (this.#loop) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#loop = this.#run().finally(() => {
      this.#loop = undefined;
      this.#wakeProducers();
      if (this.#error === undefined) this.#schedule();
    });
  }

  #due(): boolean {
    return this.#draining || this.#pendingRows >= MIN_COMMIT_ROWS || Date.now() - this.#oldestAt >= MAX_COMMIT_DELAY_MS;
  }

  #wakeProducers(): void {
    for (const wake of this.#waitingForTake.splice(0)) wake();
  }

  async #run(): Promise<void> {
    try {
      while (this.#error === undefined && (this.#next !== undefined || (this.#pending.length > 0 && this.#due()))) {
        const prepared = this.#next ?? this.#wh.prepareCommit(this.#take());
        this.#next = undefined;
        this.#writing = true;
        try {
          this.#onCommit(await this.#wh.commitPrepared(prepared));
        } finally {
          this.#writing = false;
        }
      }
    } catch (err) {
      this.#error = err;
    }
    if (this.#error !== undefined) {
      this.#next = undefined;
      this.#pending = [];
      this.#pendingRows = 0;
    }
  }
}

function toBatch(runId: string, parts: CommitPart[], until: Date | undefined): LoadBatch {
  return {
    runId,
    ...(until ? { until } : {}),
    loadedAt: new Date(),
    upserts: parts.flatMap((p) => p.upserts),
    replaces: parts.flatMap((p) => p.replaces),
    state: parts.flatMap((p) => p.state),
    holes: parts.flatMap((p) => p.holes),
  };
}
