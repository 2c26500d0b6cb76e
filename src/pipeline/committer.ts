// Serializes commits to DuckDB and batches whatever arrived while the previous commit ran, so fetched parts land in bulk
// and in the order they were handed over: a watermark is never committed before the rows it covers. Fetching goes on
// while a batch commits, and the next batch is converted for DuckDB meanwhile; a producer waits only when the rows
// after that batch are too many, and then only until they are taken.
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { Admission } from '../api/api-client.js';
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
 * The widest row that counts as one row against MAX_PENDING_ROWS and MIN_COMMIT_ROWS; a wider one counts as its columns
 * over this (a campaign message row of 43 columns as 2.9 rows). What a batch holds, as JS objects and in DuckDB's
 * staging, grows with its cells, and the demo's widest streams (campaign messages, Canvas step messages) made the
 * largest batches. The demo's first run (with the emulator thread's smaller young generation) peaked at 463–469 MB
 * counted so, 459–461 MB at a width of 10, 455–470 MB with the bound halved for every row; at 498–508 MB before.
 * Narrow streams (sessions, segment sizes, events) keep their 20,000-row commits.
 */
export const ROW_WIDTH = 15;

/** The rows a part counts for (see ROW_WIDTH): each table's rows times its columns over ROW_WIDTH, at least one each. */
export function countedRows(part: Pick<ExtractedRows, 'upserts'>): number {
  let counted = 0;
  for (const { rows } of part.upserts) {
    if (rows.length === 0) continue;
    const columns = Object.keys(rows[0]!).length;
    counted += columns > ROW_WIDTH ? Math.ceil((rows.length * columns) / ROW_WIDTH) : rows.length;
  }
  return counted;
}

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

/**
 * How often, at most, the writer closes and opens the database again after a commit (Warehouse.reopen). DuckDB keeps
 * per instance what a long run's commits leave behind and gives it back only when the instance closes: in a 20k-Canvas
 * run glibc's heap grew about 1.4 MB a minute (heaptrack: DuckDB's block handles and eviction queue). Two 20k runs side
 * by side for 14 minutes: with a reopen every 3 minutes glibc's heap stayed at 41–50 MB where the other's grew to
 * 82 MB, the peak was 502 against 534 MB, and the CPU per request no higher (docs/performance.md, stop 35). A reopen
 * checkpoints the WAL first; a run shorter than this (a nightly) never reopens.
 */
export const REOPEN_EVERY_MS = 3 * 60_000;

/**
 * One request's room for the rows it will hand over (see `Committer.room`): claimed when its pool has granted it and
 * there is room, given back by `add` with its part, or by `release` when the request failed. `claim` does not wait: a
 * request without room hands its pool's slot back and waits in `whenFree` (waiting with the slot, it could hold the
 * slot an earlier request of its window needs for a follow-up, and nothing would move). Claiming again once claimed,
 * or releasing twice, is harmless.
 */
export interface Room extends Admission {
  release(): void;
}

/** A room as the committer holds it: `give` closes it with the rows its part brought. */
interface HeldRoom extends Room {
  give(rows: number): void;
}

/** What one room claimed: its rows, and whether it is its kind's first request (see `#probing`). */
interface Claimed {
  rows: number;
  probe: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** How much a new part of a kind counts for the estimate of that kind's parts: a moving average, quick to follow. */
const ESTIMATE_WEIGHT = 0.3;

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
  // Rows claimed by requests in flight (see `room`) and how many claims are open, the rows a part of each kind brought lately, the kinds with a
  // request in flight before any of theirs came back, and the requests waiting for room.
  #reservedRows = 0;
  #claims = 0;
  readonly #estimates = new Map<string, number>();
  readonly #probing = new Set<string>();
  #waitingForRoom: { kind: string; admit: () => void; fail: (error: unknown) => void }[] = [];
  // When the database was last opened (again), and how often it is.
  readonly #reopenEveryMs: number;
  #reopenedAt: number;
  #reopens = 0;

  /**
   * `until`: the run's frozen upper bound, to audit restated values (see LoadBatch.until). `reopenEveryMs`: how often the
   * database is opened again after a commit (REOPEN_EVERY_MS).
   */
  constructor(wh: Warehouse, runId: string, onCommit: (result: CommitResult) => void, until?: Date, reopenEveryMs = REOPEN_EVERY_MS) {
    this.#wh = wh;
    this.#runId = runId;
    this.#until = until;
    this.#onCommit = onCommit;
    this.#reopenEveryMs = reopenEveryMs;
    this.#reopenedAt = Date.now();
  }

  /** Times the database was opened again (see REOPEN_EVERY_MS). */
  get reopens(): number {
    return this.#reopens;
  }

  /**
   * The room one request of `kind` needs for its rows, claimed once its pool has granted it, if they fit beside the rows
   * pending and those claimed by requests in flight (MAX_PENDING_ROWS); else the request hands its slot back and waits
   * for room (`whenFree`). Without it a request was held back only after its answer was parsed and queued, so every
   * request in flight when the bound was reached added its part on top: the demo's campaign batches reached 86,000 rows
   * of a 20,000 bound, all alive in the heap at once. `kind` names requests whose parts are alike (a stream): a claim
   * is what that kind's parts brought lately; a kind not seen yet sends one request at a time until its first part
   * arrives. A claim always goes through when nothing is pending or claimed.
   */
  room(kind: string): Room {
    let held: Claimed | undefined;
    const close = (): boolean => {
      if (held === undefined) return false;
      this.#reservedRows -= held.rows;
      this.#claims--;
      if (held.probe) this.#probing.delete(kind);
      held = undefined;
      return true;
    };
    const room: HeldRoom = {
      claim: () => {
        if (this.#error !== undefined) throw this.#error;
        if (held === undefined && this.#fits(kind)) held = this.#claim(kind);
        return held !== undefined;
      },
      whenFree: () => {
        if (this.#error !== undefined) return Promise.reject(this.#error);
        if (held !== undefined || this.#fits(kind)) return Promise.resolve();
        return new Promise<void>((admit, fail) => {
          this.#waitingForRoom.push({ kind, admit, fail });
          this.#press();
        });
      },
      release: () => {
        if (close()) this.#admitWaiting();
      },
      give: (brought: number) => {
        close();
        const before = this.#estimates.get(kind);
        this.#estimates.set(kind, before === undefined ? brought : before + ESTIMATE_WEIGHT * (brought - before));
      },
    };
    return room;
  }

  /**
   * Whether a request of `kind` fits beside the rows pending, those claimed, and those of the requests already let go
   * from waiting in this round (`rows`, `count`, `probes`): always when nothing is pending or claimed.
   */
  #fits(kind: string, rows = 0, count = 0, probes: ReadonlySet<string> = NONE): boolean {
    if (this.#pendingRows === 0 && this.#claims + count === 0) return true;
    const estimate = this.#estimates.get(kind);
    if (estimate === undefined) return !this.#probing.has(kind) && !probes.has(kind);
    return this.#pendingRows + this.#reservedRows + rows + estimate <= MAX_PENDING_ROWS;
  }

  /** Claims the room of one request of `kind`: the rows it is expected to bring (none, probing, for a kind not seen). */
  #claim(kind: string): Claimed {
    this.#claims++;
    const estimate = this.#estimates.get(kind);
    if (estimate === undefined) {
      this.#probing.add(kind);
      return { rows: 0, probe: true };
    }
    const rows = Math.ceil(estimate);
    this.#reservedRows += rows;
    return { rows, probe: false };
  }

  /**
   * Lets go the requests waiting for room whose rows now fit, in the order they came, as many as fit together (each
   * then asks its pool again and claims); a commit is pressed for the rest.
   */
  #admitWaiting(): void {
    const waiting = this.#waitingForRoom;
    this.#waitingForRoom = [];
    let rows = 0;
    let count = 0;
    const probes = new Set<string>();
    for (const w of waiting) {
      if (this.#error !== undefined) w.fail(this.#error);
      else if (this.#fits(w.kind, rows, count, probes)) {
        const estimate = this.#estimates.get(w.kind);
        if (estimate === undefined) probes.add(w.kind);
        rows += estimate ?? 0;
        count++;
        w.admit();
      } else this.#waitingForRoom.push(w);
    }
    this.#press();
  }

  /**
   * Room comes only from a commit taking the pending rows: when requests wait for room and none is in flight to bring
   * more, the pending rows are committed now (or converted as the next batch while one writes) rather than after
   * MIN_COMMIT_ROWS or MAX_COMMIT_DELAY_MS.
   */
  #press(): void {
    if (this.#waitingForRoom.length === 0 || this.#claims > 0 || this.#pending.length === 0 || this.#error !== undefined) return;
    if (!this.#loop) this.#start();
    else if (this.#writing && this.#next === undefined) this.#prepareNext();
  }

  /**
   * Queue a part, committed once MIN_COMMIT_ROWS rows wait, it waited MAX_COMMIT_DELAY_MS, or at `drain()`; resolves at once unless more than
   * MAX_PENDING_ROWS rows wait for the next commit, then as soon as that commit takes them (not when it is done:
   * fetching goes on while it writes).
   */
  async add(part: CommitPart, room?: Room): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    if (this.#pending.length === 0) this.#oldestAt = Date.now();
    const rows = countedRows(part);
    this.#pending.push(part);
    this.#pendingRows += rows;
    (room as HeldRoom | undefined)?.give(rows);
    if (this.#pendingRows >= MIN_COMMIT_ROWS) this.#start();
    else this.#schedule();
    // While DuckDB writes a batch, the next one is checked and converted here: that work no longer waits for the write
    // to end and then delays the next one (the demo's first run spent about 7 s so).
    if (this.#writing && this.#next === undefined && this.#pendingRows >= MIN_COMMIT_ROWS) this.#prepareNext();
    this.#admitWaiting();
    while (this.#pendingRows > MAX_PENDING_ROWS && this.#loop) await new Promise<void>((resolve) => this.#waitingForTake.push(resolve));
  }

  #prepareNext(): void {
    if (this.#error !== undefined) return;
    try {
      this.#next = this.#wh.prepareCommit(this.#take());
    } catch (err) {
      this.#error = err;
      this.#admitWaiting();
    }
  }

  /** The pending parts as one batch; producers waiting for room are let go. */
  #take(): LoadBatch {
    const parts = this.#pending;
    this.#pending = [];
    this.#pendingRows = 0;
    this.#wakeProducers();
    this.#admitWaiting();
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
    return this.#draining || this.#pendingRows >= MIN_COMMIT_ROWS || Date.now() - this.#oldestAt >= MAX_COMMIT_DELAY_MS
      || (this.#waitingForRoom.length > 0 && this.#claims === 0);
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
        // Requests held back for room need the pending rows taken: converted now, while this batch writes.
        this.#press();
        try {
          this.#onCommit(await this.#wh.commitPrepared(prepared));
          if (Date.now() - this.#reopenedAt >= this.#reopenEveryMs) {
            this.#reopenedAt = Date.now();
            if (await this.#wh.reopen()) this.#reopens++;
          }
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
      this.#admitWaiting();
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
