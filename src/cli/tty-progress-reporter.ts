// The terminal display of a run: a header (phase, elapsed time, ETA), one line per stream, a total line and the limit
// pools' waits, redrawn in place. Every line is cut to the terminal's width, so a redraw always erases exactly what it
// drew and a narrow terminal never keeps stale copies. Warnings, retries and (at debug) requests scroll above it.
import type { Writable } from 'node:stream';
import type { RunPhase, RunReporter, StreamProgress } from '../pipeline/run-events.js';
import type { LogLevel, ReportedEvent } from './log-level.js';
import { levelOf, shows } from './log-level.js';

/** The part of a TTY stream the display reads: its size (absent when not a terminal). */
type Terminal = Writable & { columns?: number; rows?: number };

export interface TtyOptions {
  /** @default 'info' (below info the block is not drawn, only what the level shows scrolls) */
  level?: LogLevel;
  /** Epoch milliseconds. @default Date.now */
  now?: () => number;
  /** Redraws (for the elapsed time) between events, in ms; 0 turns the timer off. @default 1000 */
  refreshMs?: number;
}

type Outcome = RunPhase | 'starting' | 'done' | 'completed_with_holes' | 'incomplete' | 'failed' | 'interrupted';

export class TtyProgressReporter implements RunReporter {
  readonly #out: Terminal;
  readonly #level: LogLevel;
  readonly #now: () => number;
  readonly #startMs: number;
  readonly #streams = new Map<string, StreamProgress & { seconds?: number }>();
  readonly #waits = new Map<string, Extract<ReportedEvent, { type: 'waiting' }>>();
  readonly #timer: NodeJS.Timeout | undefined;
  #title = 'engage-etl run';
  #phase: Outcome = 'starting';
  #estimateMs: number | undefined;
  #fetchStartMs: number | undefined;
  #endMs: number | undefined;
  #drawn = 0;
  #lastDraw = 0;

  constructor(out: Terminal, opts: TtyOptions = {}) {
    this.#out = out;
    this.#level = opts.level ?? 'info';
    this.#now = opts.now ?? Date.now;
    this.#startMs = this.#now();
    const refresh = opts.refreshMs ?? 1000;
    if (refresh > 0 && this.#block()) {
      this.#timer = setInterval(() => this.#draw(true), refresh);
      this.#timer.unref();
    }
  }

  emit(event: ReportedEvent): void {
    switch (event.type) {
      case 'run_started':
        this.#title = `${event.pipeline} run ${event.runId}`;
        break;
      case 'phase':
        this.#phase = event.phase;
        if (event.phase === 'fetch') this.#fetchStartMs = this.#now();
        if (event.phase !== 'fetch') this.#waits.clear();
        break;
      case 'planned':
        this.#estimateMs = event.estimateMs;
        for (const s of event.streams)
          this.#streams.set(s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 });
        break;
      case 'progress':
        this.#streams.set(event.progress.stream, { ...this.#streams.get(event.progress.stream), ...event.progress });
        break;
      case 'stream_finished': {
        const s = this.#streams.get(event.stream);
        if (s) s.seconds = event.seconds;
        break;
      }
      case 'waiting':
        if (event.remaining > 0 && Date.parse(event.resumesAt) > this.#now()) this.#waits.set(event.pool, event);
        else this.#waits.delete(event.pool);
        break;
      case 'warning':
        this.#scroll(event, `warning: ${event.message}`);
        return;
      case 'retry':
        this.#scroll(
          event,
          `retrying ${event.endpoint} in ${(event.waitMs / 1000).toFixed(1)} s (attempt ${event.attempt}): ${event.reason}`,
        );
        return;
      case 'request': {
        const limits = Object.entries(event.rateLimit)
          .map(([k, v]) => `${k.replace('x-ratelimit-', '')}=${v}`)
          .join(' ');
        this.#scroll(
          event,
          `${event.method} ${event.path}${event.query ? `?${event.query}` : ''} → ${event.status ?? event.error ?? 'no response'} ${event.ms} ms${limits ? ` [${limits}]` : ''}`,
        );
        return;
      }
      case 'run_finished':
        this.#phase = event.status === 'succeeded' ? 'done' : event.status;
        this.#endMs = this.#now();
        this.#waits.clear();
        this.#draw(true);
        return;
      default:
        break;
    }
    this.#draw(event.type !== 'progress');
  }

  /** A line for the person at the terminal, above the block (e.g. what Ctrl-C does). */
  note(line: string): void {
    this.#paint([this.#fit(line)]);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#draw(true);
    this.#drawn = 0; // the final block stays on screen
  }

  /**
   * The lines of the block as they would be drawn now, cut to the width. What matters most comes first on each line
   * (phase and times; a stream's name and percentage), so a narrow terminal cuts only the details.
   */
  lines(): string[] {
    if (!this.#block()) return [];
    const now = this.#endMs ?? this.#now();
    const eta = this.#endMs === undefined ? this.#etaMs(now) : undefined;
    const header = `${this.#phase} · elapsed ${clock(now - this.#startMs)}${eta === undefined ? '' : ` · ETA ~${clock(eta)}`} · ${this.#title}`;
    const streams = [...this.#streams.values()];
    const total = streams.reduce(
      (t, s) => ({ done: t.done + s.requestsDone, planned: t.planned + s.requestsPlanned, rows: t.rows + s.rows }),
      { done: 0, planned: 0, rows: 0 },
    );
    const name = Math.max(5, ...streams.map((s) => s.stream.length));
    const req = `${total.planned}/${total.planned}`.length;
    const row = (label: string, done: number, planned: number, rows: number, tail: string) =>
      `  ${label.padEnd(name)} ${`${percent(done, planned)}%`.padStart(4)} ${`${done}/${planned}`.padStart(req)} req ${rows.toLocaleString('en-US')} rows${tail}`;
    const lines = [
      header,
      ...streams.map((s) =>
        row(
          s.stream,
          s.requestsDone,
          s.requestsPlanned,
          s.rows,
          s.seconds === undefined ? '' : `, done in ${s.seconds.toFixed(1)} s`,
        ),
      ),
      row('total', total.done, total.planned, total.rows, ''),
      ...[...this.#waits.values()].map(
        (w) => `  waiting: ${w.pool} resumes at ${timeOfDay(w.resumesAt)}, ${w.remaining} requests left (${w.reason})`,
      ),
    ];
    return this.#fitHeight(lines).map((l) => this.#fit(l));
  }

  /** A block taller than the terminal could not be redrawn in place: the streams that do not fit are summed up in one line. */
  #fitHeight(lines: string[]): string[] {
    const rows = this.#out.rows;
    if (rows === undefined || lines.length < rows) return lines;
    const keep = Math.max(1, rows - 3);
    return [...lines.slice(0, keep), `  … ${lines.length - keep - 1} more lines`, lines.at(-1)!];
  }

  /** Below info the block is noise the user asked not to see. */
  #block(): boolean {
    return shows(this.#level, 'info');
  }

  /** Remaining fetch time: the plan's estimate until a twentieth is done, then the pace so far; never before a wait ends. */
  #etaMs(now: number): number | undefined {
    if (this.#phase !== 'fetch' || this.#fetchStartMs === undefined)
      return this.#phase === 'plan' || this.#phase === 'starting' ? this.#estimateMs : undefined;
    let done = 0;
    let planned = 0;
    for (const s of this.#streams.values()) {
      done += s.requestsDone;
      planned += s.requestsPlanned;
    }
    const spent = now - this.#fetchStartMs;
    let eta =
      planned > 0 && done / planned >= 0.05
        ? (spent * (planned - done)) / done
        : Math.max(0, (this.#estimateMs ?? 0) - spent);
    for (const w of this.#waits.values()) eta = Math.max(eta, Date.parse(w.resumesAt) - now);
    return eta;
  }

  #scroll(event: ReportedEvent, line: string): void {
    if (!shows(this.#level, levelOf(event))) return;
    this.note(line);
  }

  #fit(line: string): string {
    // One column is kept free: a line exactly as wide as the terminal leaves some terminals in a pending wrap.
    const width = Math.max(10, (this.#out.columns ?? 80) - 1);
    return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
  }

  /**
   * Redraws the block in place, `above` scrolling out over it. Each line clears itself (EL) and only what is below the
   * new block is cleared (ED): clearing from the block's top would, with the block at the top of the screen, clear the
   * whole screen — which tmux (scroll-on-clear) and some terminals copy into the scrollback as a stale block.
   */
  #paint(above: string[]): void {
    const lines = this.lines();
    if (above.length === 0 && lines.length === 0) return;
    const up = this.#drawn > 0 ? `\x1b[${this.#drawn}A\r` : '';
    this.#out.write(`${up}${[...above, ...lines].map((l) => `\x1b[2K${l}`).join('\n')}\n\x1b[0J`);
    this.#drawn = lines.length;
  }

  #draw(force: boolean): void {
    if (!this.#block()) return;
    const now = this.#now();
    if (!force && now - this.#lastDraw < 100) return;
    this.#lastDraw = now;
    this.#paint([]);
  }
}

function percent(done: number, planned: number): number {
  return planned === 0 ? 100 : Math.floor((100 * Math.min(done, planned)) / planned);
}

/** `0:42`, `12:05`, `1:02:09`. */
function clock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** The local wall-clock time a wait ends, as the person at the terminal reads it. */
function timeOfDay(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toTimeString().slice(0, 8);
}
