// When a seeded catalogue object was created, edited and archived. The emulator's clock reads these instants: an object
// created after now does not exist yet, `last_edited` is the latest edit at or before now, so a later run sees more.
import { hashUnit } from '../random.js';
import { DAY_MS } from './time-units.js';

export interface Lifecycle {
  createdMs: number;
  /** Later edits, ascending, each after `createdMs`. */
  editsMs: readonly number[];
  /** Instant of archiving (an edit too); undefined when never archived. */
  archivedMs?: number;
}

export function existsAt(l: Lifecycle, nowMs: number): boolean {
  return l.createdMs <= nowMs;
}

export function archivedAt(l: Lifecycle, nowMs: number): boolean {
  return l.archivedMs !== undefined && l.archivedMs <= nowMs;
}

/** The latest of creation, edits and archiving at or before `nowMs` (the creation when nothing happened since). */
export function lastEditAt(l: Lifecycle, nowMs: number): number {
  let last = l.createdMs;
  for (const e of l.editsMs) if (e <= nowMs && e > last) last = e;
  if (l.archivedMs !== undefined && l.archivedMs <= nowMs && l.archivedMs > last) last = l.archivedMs;
  return last;
}

/** The lifecycle of an object seeded before discovery existed: created and edited once, at fixed instants. */
export function fixedLifecycle(createdIso: string, editedIso: string, archived = false): Lifecycle {
  const createdMs = Date.parse(createdIso);
  const editedMs = Date.parse(editedIso);
  return { createdMs, editsMs: editedMs > createdMs ? [editedMs] : [], ...(archived ? { archivedMs: createdMs } : {}) };
}

/** Objects added for discovery are created in two waves: most before mid-2024 (so every list takes two pages in the tests' past), the rest until mid-2027. */
const EARLY_FROM = Date.UTC(2022, 9, 1);
const EARLY_TO = Date.UTC(2024, 4, 31);
const LATE_TO = Date.UTC(2027, 5, 30);
/** Share of the added objects in the early wave. */
const EARLY_SHARE = 0.8;

export interface SeededLifecycleOptions {
  /** Share of objects archived some time after creation. */
  archivedShare: number;
}

/**
 * The lifecycle of the `k`-th (0-based) of `n` objects added for discovery: creation instants increase with `k` (ids are
 * issued in creation order), 0 to 3 edits within 400 days of creation, and an archive for a seeded share of objects.
 */
export function seededLifecycle(
  seed: number,
  kind: string,
  k: number,
  n: number,
  opts: SeededLifecycleOptions,
): Lifecycle {
  const early = Math.round(n * EARLY_SHARE);
  const jitter = hashUnit(seed, kind, 'created', k);
  const createdMs =
    k < early
      ? Math.floor(EARLY_FROM + ((k + jitter) / early) * (EARLY_TO - EARLY_FROM))
      : Math.floor(EARLY_TO + ((k - early + jitter) / (n - early)) * (LATE_TO - EARLY_TO));
  const editCount = Math.floor(hashUnit(seed, kind, 'edits', k) * 4);
  const editsMs = Array.from(
    { length: editCount },
    (_, j) => createdMs + Math.floor((0.5 + hashUnit(seed, kind, 'edit', k, j) * 400) * DAY_MS),
  ).sort((a, b) => a - b);
  const archived = hashUnit(seed, kind, 'archived', k) < opts.archivedShare;
  const archivedMs = archived
    ? createdMs + Math.floor((30 + hashUnit(seed, kind, 'archive', k) * 270) * DAY_MS)
    : undefined;
  return {
    createdMs,
    editsMs: archivedMs === undefined ? editsMs : editsMs.filter((e) => e < archivedMs),
    ...(archivedMs !== undefined ? { archivedMs } : {}),
  };
}

/**
 * Objects added for discovery are numbered from 101 (cv_101, seg_101, tpl_101, cb_101, …), past the original ones of
 * every seed, so the ids that tests use as never-existing (cv_99, tpl_99) stay unknown.
 */
export const ADDED_ID_BASE = 101;

/** Wire form of an instant. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
