// Serializes commits to DuckDB. Each part's rows are written to the open load package (a file on disk, row-package.ts)
// as the part arrives; the package is committed, with the watermarks and hole changes its parts allow, once it holds
// MIN_COMMIT_ROWS rows or its oldest part has waited MAX_COMMIT_DELAY_MS, while the next package fills. A watermark is
// never committed before the rows it covers: parts land in the order they were handed over, in one transaction each
// package. What a part holds in the heap is gone once `add` returns.
import { rmSync } from 'node:fs';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { RowPackage } from '../load/row-package.js';
import type { CommitResult, HoleUpdate, PackageCommit, SeriesStateUpdate, Warehouse } from '../load/warehouse.js';
import { addUpserts } from '../load/warehouse.js';

/** Rows with the watermarks and hole changes they allow: committed together, in one transaction. */
export interface CommitPart extends ExtractedRows {
  state: SeriesStateUpdate[];
  holes: HoleUpdate[];
}

/**
 * Rows a package gathers before it is committed, unless drained: a commit costs a few statements per table whatever its
 * size, so small ones spend the run in DuckDB's fixed costs. Parts wait at most MAX_COMMIT_DELAY_MS.
 */
export const MIN_COMMIT_ROWS = 20_000;

/**
 * Rows the open package may hold while a commit runs before producers wait for that commit to end: the package is on
 * disk, so this bounds the disk a slow database lets the fetch fill, and how far the committed state lags the fetch.
 */
export const MAX_STAGED_ROWS = 200_000;

/** The longest a fetched part waits for MIN_COMMIT_ROWS to gather: a slow run still commits (and shows) its progress. */
export const MAX_COMMIT_DELAY_MS = 250;

/** The package being filled: its file, and what its parts carry besides rows. */
interface OpenPackage {
  pkg: RowPackage;
  replaces: CommitPart['replaces'];
  state: SeriesStateUpdate[];
  holes: HoleUpdate[];
}

export class Committer {
  readonly #wh: Warehouse;
  readonly #runId: string;
  readonly #until: Date | undefined;
  readonly #onCommit: (result: CommitResult) => void;
  #open: OpenPackage | undefined;
  #loop: Promise<void> | undefined;
  #error: unknown;
  // Producers waiting for the loop to take the open package (or to end).
  #waitingForTake: (() => void)[] = [];
  // Commit whatever is open, however small (set while drain() runs).
  #draining = false;
  // When the oldest part of the open package arrived (epoch ms), and the timer that commits it once MAX_COMMIT_DELAY_MS passed.
  #oldestAt = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `until`: the run's frozen upper bound, to audit restated values (see LoadBatch.until). */
  constructor(wh: Warehouse, runId: string, onCommit: (result: CommitResult) => void, until?: Date) {
    this.#wh = wh;
    this.#runId = runId;
    this.#until = until;
    this.#onCommit = onCommit;
  }

  /**
   * Write a part's rows to the open package, committed once MIN_COMMIT_ROWS rows wait, it waited MAX_COMMIT_DELAY_MS, or
   * at `drain()`; resolves at once unless the open package holds more than MAX_STAGED_ROWS while a commit runs, then
   * as soon as that commit takes it. A row a column cannot hold fails the part (a FatalError) and the run's commits.
   */
  async add(part: CommitPart): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    if (this.#open === undefined) {
      this.#open = { pkg: this.#wh.newPackage(), replaces: [], state: [], holes: [] };
      this.#oldestAt = Date.now();
    }
    const open = this.#open;
    try {
      addUpserts(open.pkg, this.#runId, part.upserts);
    } catch (err) {
      this.#fail(err);
      throw err;
    }
    for (const r of part.replaces) open.replaces.push(r);
    for (const s of part.state) open.state.push(s);
    for (const h of part.holes) open.holes.push(h);
    if (open.pkg.rows >= MIN_COMMIT_ROWS) this.#start();
    else this.#schedule();
    while (this.#open !== undefined && this.#open.pkg.rows > MAX_STAGED_ROWS && this.#loop) {
      await new Promise<void>((resolve) => this.#waitingForTake.push(resolve));
    }
  }

  /** Commit everything added; rethrows a commit failure. */
  async drain(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#draining = true;
    try {
      if (this.#error === undefined && this.#open !== undefined) this.#start();
      while (this.#loop) await this.#loop;
    } finally {
      this.#draining = false;
    }
    if (this.#error !== undefined) throw this.#error;
  }

  /** The open package, closed, as one commit; producers waiting for a take are let go. */
  #take(): { commit: PackageCommit; folder: string } {
    const open = this.#open!;
    this.#open = undefined;
    this.#wakeProducers();
    const staged = open.pkg.close();
    return {
      folder: open.pkg.folder,
      commit: {
        runId: this.#runId, ...(this.#until ? { until: this.#until } : {}), loadedAt: new Date(),
        staged, replaces: open.replaces, state: open.state, holes: open.holes,
      },
    };
  }

  /** Starts the loop once the oldest open part has waited MAX_COMMIT_DELAY_MS, unless it runs or is due anyway. */
  #schedule(): void {
    if (this.#loop || this.#timer || this.#open === undefined) return;
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
    return this.#draining || (this.#open?.pkg.rows ?? 0) >= MIN_COMMIT_ROWS || Date.now() - this.#oldestAt >= MAX_COMMIT_DELAY_MS;
  }

  #wakeProducers(): void {
    for (const wake of this.#waitingForTake.splice(0)) wake();
  }

  async #run(): Promise<void> {
    while (this.#error === undefined && this.#open !== undefined && this.#due()) {
      const { commit, folder } = this.#take();
      try {
        this.#onCommit(await this.#wh.commitPrepared(this.#wh.prepareCommit(commit)));
      } catch (err) {
        this.#fail(err);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  }

  /** A failed part or commit: nothing after it is written, and the open package is dropped. */
  #fail(err: unknown): void {
    this.#error ??= err;
    const open = this.#open;
    this.#open = undefined;
    if (open) {
      open.pkg.close();
      rmSync(open.pkg.folder, { recursive: true, force: true });
    }
    this.#wakeProducers();
  }
}
