// The days a run reconciles (shared by the plan, which counts the checks, and the reconcile phase, which makes them).
import type { DateTime } from 'luxon';
import { addUnits, floorUnit } from '../time/utc-time.js';

/**
 * The window a run reconciles: the last `lookbackDays` complete days before --until (at least one, at most the `maxDays`
 * one request of the checking endpoint may span), never before the pipeline's first day. Undefined when no complete
 * day is covered.
 */
export function reconciliationWindow(
  until: DateTime,
  from: DateTime,
  lookbackDays: number,
  maxDays: number,
): { start: DateTime; end: DateTime } | undefined {
  const end = floorUnit(until, 'day');
  const days = Math.min(Math.max(lookbackDays, 1), maxDays);
  const earliest = floorUnit(from, 'day');
  const rewound = addUnits(end, -days, 'day');
  const start = rewound.toMillis() > earliest.toMillis() ? rewound : earliest;
  return start.toMillis() < end.toMillis() ? { start, end } : undefined;
}
