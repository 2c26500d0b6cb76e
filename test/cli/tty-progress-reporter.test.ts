// The terminal display's lines, on a fake terminal with a fake clock: elapsed time, ETA from the plan then from the
// pace and never before a pool's wait ends, the total line, the waits with their resume time, and every line cut to
// the width; below info the block is not drawn.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReportedEvent } from '../../src/cli/log-level.js';
import { TtyProgressReporter } from '../../src/cli/tty-progress-reporter.js';

class FakeTerminal extends Writable {
  text = '';
  constructor(
    readonly columns: number,
    readonly rows = 50,
  ) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

function display(columns: number, clock: { now: number }, rows?: number) {
  const term = new FakeTerminal(columns, rows);
  const tty = new TtyProgressReporter(term, { now: () => clock.now, refreshMs: 0 });
  const emit = (...events: ReportedEvent[]) => events.forEach((e) => tty.emit(e));
  emit(
    {
      type: 'run_started',
      runId: '20250101T000000-abcdef',
      pipeline: 'nightly',
      until: '',
      streams: ['revenue', 'sessions'],
      source: 'x',
    },
    { type: 'phase', phase: 'plan' },
    {
      type: 'planned',
      streams: [
        { stream: 'revenue', series: 1, requests: 40, minimum: 40 },
        { stream: 'sessions', series: 1, requests: 60, minimum: 60 },
      ],
      requests: 100,
      estimateMs: 90_000,
    },
  );
  return { term, tty, emit };
}

describe('TtyProgressReporter', () => {
  it("shows the phase, elapsed time, the plan's ETA, one line per stream and the total", () => {
    const clock = { now: 0 };
    const { tty, emit } = display(120, clock);
    clock.now = 5_000;
    emit({ type: 'phase', phase: 'fetch' });
    expect(tty.lines()[0]).toBe('fetch · elapsed 0:05 · ETA ~1:30 · nightly run 20250101T000000-abcdef');
    clock.now = 25_000;
    emit({ type: 'progress', progress: { stream: 'revenue', requestsPlanned: 40, requestsDone: 40, rows: 1234 } });
    emit({ type: 'stream_finished', stream: 'revenue', seconds: 20, rows: 1234, requests: 40 });
    const lines = tty.lines();
    // 40 of 100 in 20 s of fetching: 30 s to go at that pace.
    expect(lines[0]).toBe('fetch · elapsed 0:25 · ETA ~0:30 · nightly run 20250101T000000-abcdef');
    expect(lines[1]).toBe('  revenue  100%   40/40 req 1,234 rows, done in 20.0 s');
    expect(lines[2]).toBe('  sessions   0%    0/60 req 0 rows');
    expect(lines[3]).toBe('  total     40%  40/100 req 1,234 rows');
  });

  it("shows a pool's wait with the time it resumes, and never an ETA before it", () => {
    const clock = { now: 0 };
    const { tty, emit } = display(120, clock);
    emit({ type: 'phase', phase: 'fetch' });
    const resumesAt = new Date(clock.now + 600_000).toISOString();
    emit({ type: 'waiting', pool: 'purchases_events', remaining: 60, resumesAt, reason: 'hourly budget spent' });
    const lines = tty.lines();
    expect(lines[0]).toMatch(/ETA ~10:00/);
    expect(lines.at(-1)).toBe(
      `  waiting: purchases_events resumes at ${new Date(resumesAt).toTimeString().slice(0, 8)}, 60 requests left (hourly budget spent)`,
    );
    emit({ type: 'waiting', pool: 'purchases_events', remaining: 0, resumesAt, reason: 'done' });
    expect(tty.lines().some((l) => l.includes('waiting'))).toBe(false);
  });

  it('cuts every line to the width, and sums up streams that do not fit the height', () => {
    const clock = { now: 0 };
    const { tty } = display(30, clock, 4);
    const lines = tty.lines();
    expect(lines.every((l) => l.length <= 29)).toBe(true);
    expect(lines[0]).toBe('plan · elapsed 0:00 · ETA ~1…');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^ {2}… 2 more lines/);
    expect(lines[2]).toMatch(/^ {2}total/);
  });

  it('redraws in place: each frame moves up over the previous one and clears below it', () => {
    const clock = { now: 0 };
    const { term, tty } = display(80, clock);
    tty.note('warning: something');
    const frames = term.text.split('\x1b[0J');
    expect(frames.at(-2)).toMatch(/^\x1b\[\d+A\r\x1b\[2Kwarning: something\n\x1b\[2Kplan · /);
  });

  it('draws nothing below info, and still prints a warning at warn', () => {
    const term = new FakeTerminal(80);
    const tty = new TtyProgressReporter(term, { level: 'warn', refreshMs: 0 });
    tty.emit({
      type: 'planned',
      streams: [{ stream: 'revenue', series: 1, requests: 4, minimum: 4 }],
      requests: 4,
      estimateMs: 1,
    });
    tty.emit({ type: 'warning', code: 'units_absent', message: 'two units absent', stream: 'revenue' });
    tty.close();
    expect(term.text).toBe('\x1b[2Kwarning: two units absent\n\x1b[0J');
  });
});
