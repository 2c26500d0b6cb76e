// The look-back a team can set on evidence: from the ages at which stored values were seen to change, the smallest
// `lookback_days` that would have re-fetched a chosen share of them.

/** @default 0.999 */
export const DEFAULT_RESTATEMENT_SHARE = 0.999;

/**
 * The smallest age A (whole days) such that the changes seen at ages ≤ A are at least `share` of all changes; undefined
 * when no change was seen. A unit of age A relative to a run's --until is re-fetched by a look-back of A days whatever
 * the run cadence (the range starts `lookback_days` before the watermark, which is at most --until), so A is the advice.
 */
export function recommendLookback(
  byAge: readonly { ageDays: number; changes: number }[],
  share: number = DEFAULT_RESTATEMENT_SHARE,
): number | undefined {
  if (!(share > 0 && share <= 1)) throw new RangeError(`share must be in (0, 1], got ${share}; e.g. --share 0.999`);
  const total = byAge.reduce((n, a) => n + a.changes, 0);
  if (total === 0) return undefined;
  let covered = 0;
  for (const a of [...byAge].sort((x, y) => x.ageDays - y.ageDays)) {
    covered += a.changes;
    // Compared in whole changes so that a share of exactly 1 is reached without floating-point doubt.
    if (covered >= Math.ceil(share * total - 1e-9)) return Math.max(0, a.ageDays);
  }
  return Math.max(0, ...byAge.map((a) => a.ageDays));
}
