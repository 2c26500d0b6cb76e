// The ids a stream's options name explicitly, and the workspace list each must be on: what `check` verifies before a
// run asks for an id the workspace does not have. Apps have no list: they are checked with a request.
import { ALL, ALL_OBJECTS } from './option-reader.js';
import type { WorkspaceList } from './workspace-lists.js';

export interface IdReference {
  /** The option's key in the pipeline file: `apps`, `segments`, `products`, `ids`… */
  readonly option: string;
  /** The list the ids must be on; null for apps, which the platform does not list. */
  readonly list: WorkspaceList | null;
  /** The ids named explicitly, in file order (`"*"` and `all` left out). */
  readonly ids: readonly string[];
}

/** The reference of one option's ids (`"*"` and `all` are not ids); none when the option names no id. */
export function idReference(option: string, list: WorkspaceList | null, ids: readonly string[]): IdReference[] {
  const named = ids.filter((id) => id !== ALL && id !== ALL_OBJECTS);
  return named.length === 0 ? [] : [{ option, list, ids: named }];
}
