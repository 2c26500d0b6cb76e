// When each stream of a run finishes fetching, with its duration, requests and rows: fed from the pipeline's progress
// tick, it answers `stream_finished` once per stream — as soon as a stream's planned requests are done, or, for a paged
// list whose page count is only an estimate, when the fetch phase ends.
import type { StreamFinished } from './run-events.js';

interface Clocked {
  planned: number;
  /** Paged lists: the plan's count is a guess, so only the end of the fetch phase tells they are done. */
  estimated: boolean;
  requests: number;
  rows: number;
  lastMs: number;
  finished: boolean;
}

export class StreamClock {
  readonly #streams = new Map<string, Clocked>();
  readonly #startMs: number;
  readonly #now: () => number;

  /** Starts the clock of every planned stream now (the start of the fetch phase). */
  constructor(
    streams: readonly { stream: string; requests: number; estimated: boolean }[],
    now: () => number = Date.now,
  ) {
    this.#now = now;
    this.#startMs = now();
    for (const s of streams)
      this.#streams.set(s.stream, {
        planned: s.requests,
        estimated: s.estimated,
        requests: 0,
        rows: 0,
        lastMs: this.#startMs,
        finished: false,
      });
  }

  /** Counts a finished task; returns the stream's `stream_finished` when that was its last planned request. */
  tick(stream: string, requests: number, rows: number): StreamFinished | undefined {
    const s = this.#streams.get(stream);
    if (!s || s.finished) return undefined;
    s.requests += requests;
    s.rows += rows;
    s.lastMs = this.#now();
    if (s.estimated || s.requests < s.planned) return undefined;
    return this.#finish(stream, s);
  }

  /** At the end of a fetch phase that succeeded: the streams not yet finished (paged lists, streams with nothing to do). */
  finishRest(): StreamFinished[] {
    return [...this.#streams].filter(([, s]) => !s.finished).map(([stream, s]) => this.#finish(stream, s));
  }

  #finish(stream: string, s: Clocked): StreamFinished {
    s.finished = true;
    return { stream, seconds: Math.round(s.lastMs - this.#startMs) / 1000, rows: s.rows, requests: s.requests };
  }
}
