// What a stream declaration may ask of its options block in the pipeline file. The config layer implements it, so every
// refusal names the file, line, field (`streams.revenue.products[1]`), the value and the fix.
import type { SeriesUnit } from '../api/types.js';

/** In a selector list, `"*"` means "omit the parameter": the series over all apps / products / segments. */
export const ALL = '*';

/** In an id list, `all` means every object the workspace lists (discovered at the start of each run). */
export const ALL_OBJECTS = 'all';

/**
 * An id list as the pipeline file says it: `all` (every object the workspace lists), explicit ids, or both
 * (`products: ["*", all]`). Discovery turns `all` into ids before planning, so the planner only sees `all: false`.
 */
export interface IdSelection {
  readonly all: boolean;
  /** Explicit entries, in file order (`"*"` among them where the list allows the aggregate). */
  readonly ids: readonly string[];
}

export interface OptionReader {
  /** `unit:` among `allowed`; absent → the first of `allowed`. */
  unit(allowed: readonly SeriesUnit[]): SeriesUnit;
  /** `key: true|false`; absent → false. */
  boolean(key: string): boolean;
  /** A filter list where `"*"` means "parameter omitted"; absent → `["*"]`. `example` completes "e.g. …". */
  selectors(key: string, example: string): readonly string[];
  /** A required list of explicit ids (`"*"` refused). `example` completes "list the …". */
  ids(key: string, example: string): readonly string[];
  /**
   * An id list that may say `all`: `key: all`, `key: [all]`, or `all` beside ids. With `aggregate`, `"*"` is allowed
   * too and the key defaults to `["*"]` (a selector list); otherwise the key is required. `example` completes "e.g. …".
   */
  idSelection(key: string, example: string, opts?: { aggregate?: boolean }): IdSelection;
  /** `key:` one of `allowed`; absent → the first of `allowed`. */
  choice<T extends string>(key: string, allowed: readonly T[]): T;
  /** A required list of explicit ids, or the single word `word` (`events: all`). */
  idsOr<W extends string>(key: string, word: W, example: string): readonly string[] | W;
  /** A list of values from `allowed`, each once; absent → all of `allowed`. */
  subset<T extends string>(key: string, allowed: readonly T[]): readonly T[];
  /** Refuse the value at `key` (or the stream's block when `key` is undefined). */
  fail(key: string | undefined, message: string): never;
}
