// Test-only crash points for the reliability suite: ENGAGE_ETL_CRASH_AT="<point>:<n>" (read by the CLI, which arms
// them) makes the process SIGKILL itself the n-th time it reaches <point>, so a test can kill a run at moments timing
// alone cannot hit (inside a commit's transaction, between a Parquet rename and its manifest). Unarmed — always,
// outside that suite — it does nothing.
import { ConfigError } from '../errors.js';

/** The moments a run can be killed at, in the order a run reaches them. */
export const CRASH_POINTS = [
  /** Inside a commit's transaction: every table merged and the watermarks written, COMMIT not yet sent. */
  'commit-merged',
  /** Right after a commit: rows and watermarks are durable, the next batch not started. */
  'commit-done',
  /** A partition's Parquet file is complete in the staging folder, not yet renamed into place. */
  'parquet-staged',
  /** A partition's file has been renamed into place; the table's manifest is not rewritten yet. */
  'parquet-placed',
  /** A table's manifest is written; its partitions are still marked dirty in the database. */
  'manifest-written',
  /** The whole export is done; the run is not yet recorded as succeeded. */
  'export-done',
  /** A copy of the database (working copy adopted, or snapshot published) is complete beside its target, not yet renamed. */
  'snapshot-copied',
  /** With --db s3://…: a checkpoint object is uploaded; the note that names it is not written yet. */
  'checkpoint-uploaded',
  /** With --db s3://…: the database is published; the checkpoint it makes stale is not removed yet. */
  'database-published',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

/** The environment variable naming the crash point; never set it outside tests. */
export const CRASH_AT_ENV = 'ENGAGE_ETL_CRASH_AT';

let target: { point: CrashPoint; n: number } | undefined;
let reached = 0;

/** Arms the crash point named by the value of ENGAGE_ETL_CRASH_AT (`<point>:<n>`); undefined or empty disarms. */
export function armCrashPoint(raw: string | undefined): void {
  target = parse(raw);
  reached = 0;
}

function parse(raw: string | undefined): { point: CrashPoint; n: number } | undefined {
  if (raw === undefined || raw === '') return undefined;
  const m = /^([a-z-]+):(\d+)$/.exec(raw);
  const point = m?.[1] as CrashPoint | undefined;
  const n = Number(m?.[2]);
  if (!point || !CRASH_POINTS.includes(point) || !(n >= 1)) {
    // A typo would silently make a crash test pass without crashing; refuse it loudly instead.
    throw new ConfigError(
      CRASH_AT_ENV,
      `${JSON.stringify(raw)} is not "<point>:<n>" with n ≥ 1 and point one of ${CRASH_POINTS.join(', ')}; unset it outside tests`,
    );
  }
  return { point, n };
}

/** Marks that the run reached `point`; kills the process on the configured occurrence (test-only). */
export function crashPoint(point: CrashPoint): void {
  if (target?.point !== point) return;
  reached += 1;
  if (reached === target.n) process.kill(process.pid, 'SIGKILL');
}
