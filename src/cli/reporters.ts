// Renders a run's events: a live per-stream progress block on a TTY, quiet JSON lines (one object per event) otherwise.
import type { Writable } from 'node:stream';
import type { RunEvent, RunReporter, StreamProgress } from '../pipeline/run-events.js';

/** One JSON object per line, for logs and schedulers. Progress events are thinned to one per stream per second. */
export class JsonLinesReporter implements RunReporter {
  readonly #out: Writable;
  readonly #lastProgress = new Map<string, number>();

  constructor(out: Writable) {
    this.#out = out;
  }

  emit(event: RunEvent): void {
    if (event.type === 'progress') {
      const p = event.progress;
      const last = this.#lastProgress.get(p.stream) ?? 0;
      const now = Date.now();
      if (p.requestsDone < p.requestsPlanned && now - last < 1000) return;
      this.#lastProgress.set(p.stream, now);
    }
    this.#out.write(`${JSON.stringify({ ts: new Date().toISOString(), ...event })}\n`);
  }

  close(): void {}
}

/** A block of one line per stream, redrawn in place at most ten times a second. Warnings and retries scroll above it. */
export class TtyProgressReporter implements RunReporter {
  readonly #out: Writable;
  readonly #streams = new Map<string, StreamProgress>();
  #drawn = 0;
  #lastDraw = 0;

  constructor(out: Writable) {
    this.#out = out;
  }

  emit(event: RunEvent): void {
    switch (event.type) {
      case 'planned':
        for (const s of event.streams) this.#streams.set(s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 });
        this.#draw(true);
        return;
      case 'progress':
        this.#streams.set(event.progress.stream, event.progress);
        this.#draw(event.progress.requestsDone === event.progress.requestsPlanned);
        return;
      case 'warning':
        this.#above(`warning: ${event.message}`);
        return;
      case 'waiting':
        this.#above(`waiting for limit pool "${event.pool}" (${event.remaining} requests left) until ${event.resumesAt}: ${event.reason}`);
        return;
      case 'retry':
        this.#above(`retrying ${event.endpoint} in ${(event.waitMs / 1000).toFixed(1)} s (attempt ${event.attempt}): ${event.reason}`);
        return;
      default:
        return;
    }
  }

  close(): void {
    this.#draw(true);
  }

  #above(line: string): void {
    this.#erase();
    this.#out.write(`${line}\n`);
    this.#draw(true);
  }

  #erase(): void {
    if (this.#drawn > 0) this.#out.write(`\x1b[${this.#drawn}A\x1b[0J`);
    this.#drawn = 0;
  }

  #draw(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.#lastDraw < 100) return;
    this.#lastDraw = now;
    this.#erase();
    const width = Math.max(0, ...[...this.#streams.keys()].map((k) => k.length));
    const lines = [...this.#streams.values()].map((p) => {
      const pct = p.requestsPlanned === 0 ? 100 : Math.floor((100 * p.requestsDone) / p.requestsPlanned);
      return `  ${p.stream.padEnd(width)}  ${String(p.requestsDone).padStart(6)}/${String(p.requestsPlanned).padEnd(6)} requests ${String(pct).padStart(3)}%  ${p.rows.toLocaleString('en-US')} rows`;
    });
    if (lines.length > 0) this.#out.write(`${lines.join('\n')}\n`);
    this.#drawn = lines.length;
  }
}
