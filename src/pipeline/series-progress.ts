// Tracks the windows of one series through a run and decides how far its watermark may move: only over a contiguous
// prefix of finished windows, and never past the last complete unit before the run's frozen upper bound.

export interface PlannedSpan {
  /** Start of the span (epoch ms, inclusive). */
  startMs: number;
  /** End of the span (epoch ms, exclusive). */
  endMs: number;
}

export class SeriesProgress {
  readonly #spans: PlannedSpan[];
  readonly #done: boolean[];
  readonly #completeEndMs: number;
  #prefix = 0;
  #committedMs: number | undefined;
  #rowsSinceAdvance = 0;

  /**
   * @param spans the planned windows, in time order, contiguous
   * @param completeEndMs end of the last complete unit (units ending after it are in progress and never final)
   * @param watermarkMs the stored watermark, if any (it never moves backwards)
   */
  constructor(spans: readonly PlannedSpan[], completeEndMs: number, watermarkMs?: number) {
    this.#spans = [...spans].sort((a, b) => a.startMs - b.startMs);
    this.#done = this.#spans.map(() => false);
    this.#completeEndMs = completeEndMs;
    this.#committedMs = watermarkMs;
  }

  /** Mark the window starting at `startMs` as loaded with `rows` rows. */
  finish(startMs: number, rows = 0): void {
    this.#rowsSinceAdvance += rows;
    const index = this.#spans.findIndex((s) => s.startMs === startMs);
    if (index < 0) throw new RangeError(`SeriesProgress: no planned window starts at ${new Date(startMs).toISOString()}`);
    this.#done[index] = true;
    while (this.#prefix < this.#done.length && this.#done[this.#prefix]) this.#prefix++;
  }

  /**
   * The watermark this series may now record (with the rows loaded since the last one), or undefined when it does not
   * move. It is the start of the first unit that is not final: the end of the finished prefix, capped at the last
   * complete unit.
   */
  advance(): { watermarkMs: number; rows: number } | undefined {
    if (this.#prefix === 0) return undefined;
    const prefixEnd = this.#spans[this.#prefix - 1]!.endMs;
    const candidate = Math.min(prefixEnd, this.#completeEndMs);
    if (this.#committedMs !== undefined && candidate <= this.#committedMs) return undefined;
    this.#committedMs = candidate;
    const rows = this.#rowsSinceAdvance;
    this.#rowsSinceAdvance = 0;
    return { watermarkMs: candidate, rows };
  }

  get finished(): boolean {
    return this.#prefix === this.#spans.length;
  }
}
