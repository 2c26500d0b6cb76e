// The look-back each series stream re-reads in one run: the pipeline file's number, or for `lookback_days: auto` one set
// from the restatements the stream has shown, with a deeper probe on a schedule so that deeper ones are found.
import type { Lookback } from '../config/pipeline-definition.js';
import { DEFAULT_RESTATEMENT_SHARE, recommendLookback } from './lookback-advice.js';

/** Days added to the deepest restatement seen: a restatement one or two days deeper than any before is still caught. */
export const AUTO_LOOKBACK_MARGIN_DAYS = 2;
/**
 * Every this many days (by --until) a stream's auto look-back is `lookback_max_days` for one run: restatements older than
 * the look-back are never re-read, so never seen, and the look-back could only shrink without the probe.
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

/**
 * The rule of `lookback_days: auto`, per stream and run:
 * - nothing stored yet: no probe (nothing to re-read); the days are the rule below;
 * - no probe recorded, or the last one AUTO_LOOKBACK_PROBE_DAYS or more before --until: a probe, `maxDays`;
 * - else the smallest look-back that covers the restatements seen (recommendLookback at the share `status
 *   --restatements` advises with; 0 when none was seen) plus AUTO_LOOKBACK_MARGIN_DAYS, at most `maxDays`.
 */
export function effectiveLookback(lookback: Lookback, evidence: LookbackEvidence, until: Date): EffectiveLookback {
  if (lookback.mode === 'fixed') return { mode: 'fixed', days: lookback.days, probe: false, reason: 'lookback_days in the pipeline file' };
  const probeDue = evidence.lastProbe === undefined || until.getTime() - evidence.lastProbe.getTime() >= AUTO_LOOKBACK_PROBE_DAYS * DAY_MS;
  if (evidence.stored && probeDue) {
    return {
      mode: 'auto', days: lookback.maxDays, probe: true,
      reason: `probe: lookback_max_days (${lookback.maxDays}) once every ${AUTO_LOOKBACK_PROBE_DAYS} days, to find restatements deeper than the look-back`,
    };
  }
  const covering = recommendLookback(evidence.byAge, DEFAULT_RESTATEMENT_SHARE);
  const days = Math.min(lookback.maxDays, (covering ?? 0) + AUTO_LOOKBACK_MARGIN_DAYS);
  const seen = covering === undefined
    ? `no restatement seen in the last ${AUTO_LOOKBACK_EVIDENCE_DAYS} days`
    : `restatements seen up to ${covering} day(s) old in the last ${AUTO_LOOKBACK_EVIDENCE_DAYS} days`;
  const capped = days < (covering ?? 0) + AUTO_LOOKBACK_MARGIN_DAYS ? `, capped at lookback_max_days (${lookback.maxDays})` : '';
  return { mode: 'auto', days, probe: false, reason: `${seen}, plus ${AUTO_LOOKBACK_MARGIN_DAYS} days' margin${capped}` };
}
