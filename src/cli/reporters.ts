// JSON-lines logging of a run's events on stderr: one compact object per line, each with `ts`, `level`, `type` and
// `run_id`, so a log file of a scheduled run parses line by line and can be filtered by level and by run.
import type { Writable } from 'node:stream';
import type { RunReporter } from '../pipeline/run-events.js';
import type { LogLevel, ReportedEvent } from './log-level.js';
import { levelOf, shows } from './log-level.js';

/** Progress events are thinned to one per stream per second (the last of a stream always passes). */
export class JsonLinesReporter implements RunReporter {
  readonly #out: Writable;
  readonly #level: LogLevel;
  readonly #lastProgress = new Map<string, number>();
  /** Known from `run_started` on; events before it (none today) carry null. */
  #runId: string | null = null;

  constructor(out: Writable, level: LogLevel = 'info') {
    this.#out = out;
    this.#level = level;
  }

  emit(event: ReportedEvent): void {
    if ((event.type === 'run_started' || event.type === 'run_finished') && this.#runId === null)
      this.#runId = event.runId;
    const level = levelOf(event);
    if (!shows(this.#level, level)) return;
    if (event.type === 'progress') {
      const p = event.progress;
      const last = this.#lastProgress.get(p.stream) ?? 0;
      const now = Date.now();
      if (p.requestsDone < p.requestsPlanned && now - last < 1000) return;
      this.#lastProgress.set(p.stream, now);
    }
    this.#out.write(`${jsonLine(event, level, this.#runId)}\n`);
  }

  close(): void {}
}

/** One event as a log line: envelope first (ts, level, type, run_id), then the event's own fields, progress flattened. */
function jsonLine(event: ReportedEvent, level: LogLevel, runId: string | null): string {
  const { type, runId: _runId, progress, ...fields } = event as ReportedEvent & { runId?: string; progress?: object };
  return JSON.stringify({ ts: new Date().toISOString(), level, type, run_id: runId, ...progress, ...fields });
}
