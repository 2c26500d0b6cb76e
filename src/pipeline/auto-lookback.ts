// The look-back each series stream re-reads in one run: the pipeline file's number, or for `lookback_days: auto` one set
// from the restatements the stream has shown, with a deeper probe on a schedule so that deeper ones are found.
import type { Lookback } from '../config/pipeline-definition.js';
import { DEFAULT_RESTATEMENT_SHARE, recommendLookback } from './lookback-advice.js';

/** Days added to the deepest restatement seen: a restatement one or two days deeper than any before is still caught. */
export const AUTO_LOOKBACK_MARGIN_DAYS = 2;
/**
 * Every this many days (by --until) a stream's auto look-back is `lookback_max_days` for one run: restatements older than
 * the look-back are never re-read, so never seen, and the look-back could only shrink without the probe. Each stream
 * probes on its own night of the cycle (probeNight), so the streams' probes spread over the week instead of all
 * landing on one night that re-reads lookback_max_days of every stream.
 */
export const AUTO_LOOKBACK_PROBE_DAYS = 7;
/** Restatements seen by runs up to this many days before --until are the evidence: older ones no longer raise it. */
export const AUTO_LOOKBACK_EVIDENCE_DAYS = 56;

const DAY_MS = 86_400_000;

/** What the warehouse holds about one stream's look-back. */
export interface LookbackEvidence {
  /** Values restated at each age (whole days before the --until of the run that saw it), in the evidence window. */
  byAge: readonly { ageDays: number; changes: number }[];
  /** The --until of the stream's last probe. @default none */
  lastProbe?: Date;
  /** The --until of the oldest run of the stream `_etl_lookback` holds. @default none */
  firstRecorded?: Date;
  /** Whether the stream has a watermark: without one a run fetches from the start and re-reads nothing. */
  stored: boolean;
}

/** The look-back one stream re-reads in one run, and why. */
export interface EffectiveLookback {
  mode: Lookback['mode'];
  days: number;
  /** A probe run of an auto look-back: `days` is lookback_max_days. */
  probe: boolean;
  reason: string;
}

/** Whole days from 1970-01-01 UTC to the day `at` falls in. */
function dayNumber(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS);
}

/**
 * The stream's night in the probe cycle, 0 to AUTO_LOOKBACK_PROBE_DAYS − 1: a hash of its name (32-bit FNV-1a), so it is
 * the same in every run and on every machine, and different streams mostly fall on different nights.
 */
export function probeNight(stream: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < stream.length; i++) {
    hash ^= stream.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % AUTO_LOOKBACK_PROBE_DAYS;
}

/** Whether the day of `until` is the stream's night of the probe cycle. */
export function isProbeNight(stream: string, until: Date): boolean {
  return dayNumber(until) % AUTO_LOOKBACK_PROBE_DAYS === probeNight(stream);
}

/**
 * Whether an auto look-back probes in the run up to `until`: only with something stored (else nothing is re-read), on
 * the stream's probe night unless it already probed that day; and, for runs that skip nights (a weekly schedule, a
 * missed night), once the last probe is a cycle old (or, never probed, once its runs span a cycle) whatever the night.
 * Nightly runs meet both on the probe night itself, so the probes stay on it.
 */
function probeDue(stream: string, evidence: LookbackEvidence, until: Date): boolean {
  if (!evidence.stored) return false;
  const cycle = AUTO_LOOKBACK_PROBE_DAYS * DAY_MS;
  if (evidence.lastProbe === undefined) {
    return (
      isProbeNight(stream, until) ||
      (evidence.firstRecorded !== undefined && until.getTime() - evidence.firstRecorded.getTime() >= cycle)
    );
  }
  if (isProbeNight(stream, until) && dayNumber(until) > dayNumber(evidence.lastProbe)) return true;
  return until.getTime() - evidence.lastProbe.getTime() >= cycle;
}

/**
 * The rule of `lookback_days: auto`, per stream and run:
 * - a probe when one is due (probeDue: nothing stored means none): `maxDays`;
 * - else the smallest look-back that covers the restatements seen (recommendLookback at the share `status
 *   --restatements` advises with; 0 when none was seen) plus AUTO_LOOKBACK_MARGIN_DAYS, at most `maxDays`.
 */
export function effectiveLookback(
  stream: string,
  lookback: Lookback,
  evidence: LookbackEvidence,
  until: Date,
): EffectiveLookback {
  if (lookback.mode === 'fixed')
    return { mode: 'fixed', days: lookback.days, probe: false, reason: 'lookback_days in the pipeline file' };
  if (probeDue(stream, evidence, until)) {
    return {
      mode: 'auto',
      days: lookback.maxDays,
      probe: true,
      reason: `probe: lookback_max_days (${lookback.maxDays}) on this stream's night of every ${AUTO_LOOKBACK_PROBE_DAYS} (night ${probeNight(stream)}), to find restatements deeper than the look-back`,
    };
  }
  const covering = recommendLookback(evidence.byAge, DEFAULT_RESTATEMENT_SHARE);
  const days = Math.min(lookback.maxDays, (covering ?? 0) + AUTO_LOOKBACK_MARGIN_DAYS);
  const seen =
    covering === undefined
      ? `no restatement seen in the last ${AUTO_LOOKBACK_EVIDENCE_DAYS} days`
      : `restatements seen up to ${covering} day(s) old in the last ${AUTO_LOOKBACK_EVIDENCE_DAYS} days`;
  const capped =
    days < (covering ?? 0) + AUTO_LOOKBACK_MARGIN_DAYS ? `, capped at lookback_max_days (${lookback.maxDays})` : '';
  return {
    mode: 'auto',
    days,
    probe: false,
    reason: `${seen}, plus ${AUTO_LOOKBACK_MARGIN_DAYS} days' margin${capped}`,
  };
}
