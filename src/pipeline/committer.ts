// Serializes commits to DuckDB. Each part's rows are written to the open load package (a file on disk, row-package.ts)
// as the part arrives; the package is committed, with the watermarks and hole changes its parts allow, once it holds
// MIN_COMMIT_ROWS rows or its oldest part has waited MAX_COMMIT_DELAY_MS, while the next package fills. A watermark is
// never committed before the rows it covers: parts land in the order they were handed over, in one transaction each
// package. What a part holds in the heap is gone once `add` returns. The room the staged rows may take is the
// scheduler's to decide (run-scheduler.ts): the committer tells it what it staged and what a commit took.
import { rmSync } from 'node:fs';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { RowPackage } from '../load/row-package.js';
import type { CommitResult, HoleUpdate, PackageCommit, SeriesStateUpdate, Warehouse } from '../load/warehouse.js';
import { addToPackage } from '../load/warehouse.js';

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

/** The longest a fetched part waits for MIN_COMMIT_ROWS to gather: a slow run still commits (and shows) its progress. */
export const MAX_COMMIT_DELAY_MS = 250;

/** Who hears of the rows staged and not yet committed: the run's scheduler, which decides their room. */
export interface StagedRows {
  /** `rows` rows were written to the open package. */
  staged(rows: number): void;
  /** A commit took the open package, with its `rows` rows. */
  taken(rows: number): void;
  /** The commits failed: nothing staged will be committed. */
  refuse(error: unknown): void;
}

/** The package being filled: its files (rows and replace scopes), and what its parts carry besides. */
interface OpenPackage {
  pkg: RowPackage;
  state: SeriesStateUpdate[];
  holes: HoleUpdate[];
}

export class Committer {
  readonly #wh: Warehouse;
  readonly #runId: string;
  readonly #until: Date | undefined;
  readonly #onCommit: (result: CommitResult) => void;
  readonly #room: StagedRows | undefined;
  #open: OpenPackage | undefined;
  #loop: Promise<void> | undefined;
  #error: unknown;
  // Commit whatever is open, however small (set while drain() runs).
  #draining = false;
  // When the oldest part of the open package arrived (epoch ms), and the timer that commits it once MAX_COMMIT_DELAY_MS passed.
  #oldestAt = 0;
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param opts.until the run's frozen upper bound, to audit restated values (see LoadBatch.until).
   * @param opts.room told of the rows staged and taken (the run's scheduler).
   */
  constructor(
    wh: Warehouse,
    runId: string,
    onCommit: (result: CommitResult) => void,
    opts: { until?: Date; room?: StagedRows } = {},
  ) {
    this.#wh = wh;
    this.#runId = runId;
    this.#until = opts.until;
    this.#room = opts.room;
    this.#onCommit = onCommit;
  }

  /**
   * Write a part's rows to the open package, committed once MIN_COMMIT_ROWS rows wait, it waited MAX_COMMIT_DELAY_MS, or
   * at `drain()`. A row a column cannot hold fails the part (a FatalError) and the run's commits.
   */
  async add(part: CommitPart): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    if (this.#open === undefined) {
      this.#open = { pkg: this.#wh.newPackage(), state: [], holes: [] };
      this.#oldestAt = Date.now();
    }
    const open = this.#open;
    const before = open.pkg.rows;
    try {
      addToPackage(open.pkg, this.#runId, part);
    } catch (err) {
      this.#fail(err);
      throw err;
    }
    this.#room?.staged(open.pkg.rows - before);
    for (const s of part.state) open.state.push(s);
    for (const h of part.holes) open.holes.push(h);
    if (open.pkg.rows >= MIN_COMMIT_ROWS) this.#start();
    else this.#schedule();
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

  /** The open package, closed, as one commit; its rows leave the room the scheduler keeps for staged rows. */
  #take(): { commit: PackageCommit; folder: string } {
    const open = this.#open!;
    this.#open = undefined;
    this.#room?.taken(open.pkg.rows);
    const staged = open.pkg.close();
    return {
      folder: open.pkg.folder,
      commit: {
        runId: this.#runId,
        ...(this.#until ? { until: this.#until } : {}),
        loadedAt: new Date(),
        staged,
        state: open.state,
        holes: open.holes,
      },
    };
  }

  /** Starts the loop once the oldest open part has waited MAX_COMMIT_DELAY_MS, unless it runs or is due anyway. */
  #schedule(): void {
    if (this.#loop || this.#timer || this.#open === undefined) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#start();
      },
      Math.max(0, this.#oldestAt + MAX_COMMIT_DELAY_MS - Date.now()),
    );
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
      if (this.#error === undefined) this.#schedule();
    });
  }

  #due(): boolean {
    return (
      this.#draining ||
      (this.#open?.pkg.rows ?? 0) >= MIN_COMMIT_ROWS ||
      Date.now() - this.#oldestAt >= MAX_COMMIT_DELAY_MS
    );
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
    this.#room?.refuse(err);
  }
}
