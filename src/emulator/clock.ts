// The emulator's notion of "now". Given a start instant it stands still (deterministic tests move it with set/advance);
// without one it follows the machine's clock.
import { DateTime } from 'luxon';

export class Clock {
  #fixedMs: number | undefined;

  /** @param start ISO 8601 instant; when omitted the clock follows real time. */
  constructor(start?: string | Date) {
    if (start === undefined) return;
    const ms = typeof start === 'string' ? DateTime.fromISO(start, { zone: 'utc' }).toMillis() : start.getTime();
    if (!Number.isFinite(ms))
      throw new RangeError(`Clock: "${String(start)}" is not an ISO 8601 instant (e.g. 2025-06-15T12:00:00Z)`);
    this.#fixedMs = ms;
  }

  /** Current instant in milliseconds since the epoch. */
  nowMs(): number {
    return this.#fixedMs ?? Date.now();
  }

  /** Current instant as a UTC luxon DateTime. */
  now(): DateTime {
    return DateTime.fromMillis(this.nowMs(), { zone: 'utc' });
  }

  /** Freeze the clock at an instant. */
  set(instant: string | Date): void {
    const ms = typeof instant === 'string' ? DateTime.fromISO(instant, { zone: 'utc' }).toMillis() : instant.getTime();
    if (!Number.isFinite(ms)) throw new RangeError(`Clock.set: "${String(instant)}" is not an ISO 8601 instant`);
    this.#fixedMs = ms;
  }

  /** Move the clock forward (freezing it at the result). */
  advance(ms: number): void {
    this.#fixedMs = this.nowMs() + ms;
  }
}
