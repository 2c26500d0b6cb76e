// The two columns of a table whose rows discovery may find (Canvases, campaigns, segments, templates, blocks, products):
// the list version the row was read at, and when the workspace's list stopped showing the object.
import { col } from '../load/table-definition.js';
import type { ListedObject } from './workspace-lists.js';

/**
 * `_list_version`: the object's list version (its edit instant, UTC) when the row was written; discovery re-reads an
 * object only when the list shows another. `_removed_at`: the run's --until when a list with `all` stopped showing the
 * object (NULL while listed): the row is kept so its history stays queryable, and cleared if the object is listed again.
 */
export const DISCOVERED_COLUMNS = [col('_list_version', 'VARCHAR'), col('_removed_at', 'TIMESTAMP')] as const;

/** The values of DISCOVERED_COLUMNS for a row written now from `listed` (undefined for an id named in the file). */
export function discoveredValues(listed: ListedObject | undefined): {
  _list_version: string | null;
  _removed_at: null;
} {
  return { _list_version: listed?.version ?? null, _removed_at: null };
}
