// What a run did so far, gathered from its events: the run id, requests and rows, the changes committed per table and
// the streams that finished. It is what `run` tells after a failure or Ctrl-C, when no summary exists.
import { HISTORY_SUFFIX } from '../load/table-history.js';
import type { RunReporter, StreamFinished } from '../pipeline/run-events.js';
import type { RunSummary } from '../pipeline/run-pipeline.js';
import type { ReportedEvent } from './log-level.js';

export class RunTally implements RunReporter {
  runId: string | null = null;
  readonly #requests = new Map<string, number>();
  readonly #rows = new Map<string, number>();
  /** Requests each stream was planned with, to count the follow-ups (pages found beyond the plan) as the summary does. */
  readonly #planned = new Map<string, number>();
  readonly #followUps = new Map<string, number>();
  #sent: RunSummary['requests'] = { planned: 0, minimum: 0, sent: 0, retries: 0, followUps: 0, byPool: {} };
  readonly committed = new Map<string, { inserted: number; updated: number; deleted: number }>();
  readonly finished: StreamFinished[] = [];

  emit(event: ReportedEvent): void {
    switch (event.type) {
      case 'run_started':
        this.runId = event.runId;
        return;
      case 'planned':
        for (const st of event.streams) this.#planned.set(st.stream, st.requests);
        this.#sent = {
          ...this.#sent,
          planned: event.requests,
          minimum: event.streams.reduce((n, st) => n + st.minimum, 0),
          byPool: event.byPool ?? {},
        };
        return;
      case 'request':
        this.#sent.sent += 1;
        return;
      case 'retry':
        this.#sent.retries += 1;
        return;
      case 'progress':
        this.#requests.set(event.progress.stream, event.progress.requestsDone);
        this.#followUps.set(
          event.progress.stream,
          Math.max(
            0,
            event.progress.requestsPlanned -
              (this.#planned.get(event.progress.stream) ?? event.progress.requestsPlanned),
          ),
        );
        this.#rows.set(event.progress.stream, event.progress.rows);
        return;
      case 'stream_finished':
        this.finished.push({
          stream: event.stream,
          seconds: event.seconds,
          rows: event.rows,
          requests: event.requests,
        });
        return;
      case 'committed':
        for (const t of event.tables) {
          const sum = this.committed.get(t.table) ?? { inserted: 0, updated: 0, deleted: 0 };
          sum.inserted += t.inserted;
          sum.updated += t.updated;
          sum.deleted += t.deleted;
          this.committed.set(t.table, sum);
        }
        return;
      default:
        return;
    }
  }

  close(): void {}

  /**
   * Counts for the one-line JSON result of a run that ended without a summary. `requests` has the summary's shape, so a
   * reader of the JSON line finds `requests.sent` whatever the outcome; `requestsDone` counts answered units.
   */
  counts(): {
    requests: RunSummary['requests'];
    requestsDone: number;
    rowsFetched: number;
    rowsChanged: number;
    tables: { table: string; inserted: number; updated: number; deleted: number }[];
  } {
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const tables = [...this.committed].map(([table, c]) => ({ table, ...c }));
    return {
      requests: { ...this.#sent, followUps: sum(this.#followUps), byPool: { ...this.#sent.byPool } },
      requestsDone: sum(this.#requests),
      rowsFetched: sum(this.#rows),
      // A history table's versions opened and closed are listed in `tables`, not counted as rows changed (sumChanges).
      rowsChanged: tables.reduce(
        (n, t) => (t.table.endsWith(HISTORY_SUFFIX) ? n : n + t.inserted + t.updated + t.deleted),
        0,
      ),
      tables,
    };
  }

  /** `revenue +120 ~3, sessions +48` — what was committed, for a person. */
  committedText(): string {
    const parts = [...this.committed]
      .filter(([, c]) => c.inserted + c.updated + c.deleted > 0)
      .map(
        ([table, c]) =>
          `${table} ${[c.inserted && `+${c.inserted}`, c.updated && `~${c.updated}`, c.deleted && `-${c.deleted}`].filter(Boolean).join(' ')}`,
      );
    return parts.length === 0 ? 'nothing' : parts.join(', ');
  }
}

/** Fans events out to several reporters (the display and the tally). */
export function teeReporters(...reporters: RunReporter[]): RunReporter {
  return {
    emit: (event) => reporters.forEach((r) => r.emit(event)),
    close: () => reporters.forEach((r) => r.close()),
  };
}
