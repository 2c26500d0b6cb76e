// When a database's `workspace:` changes (none → NAME, or one name → another), its Parquet moves: the next export
// writes every partition under the new layout, then the objects of the old one — this database's own files — go.
import { placeOfWorkspace } from '../store/workspace-place.js';
import type { Place } from '../store/place.js';
import { EXPORTED_TABLES, WORKSPACE_PARTITION_COLUMN } from './parquet-layout.js';
import { manifestName } from './table-manifest.js';

/**
 * Delete, in `lake`, the tables' objects and manifests of the layout of workspace `previous` (undefined: the layout
 * without workspace, leaving every `workspace=…` folder alone). Returns how many objects were deleted.
 */
export async function retireLayout(lake: Place, previous: string | undefined): Promise<number> {
  const old = placeOfWorkspace(lake, previous);
  const keys: string[] = [];
  for (const { folder } of EXPORTED_TABLES) {
    for (const o of await old.list(`${folder}/`)) {
      const inWorkspace = o.key.split('/')[1]?.startsWith(`${WORKSPACE_PARTITION_COLUMN}=`) ?? false;
      if (previous !== undefined || !inWorkspace) keys.push(o.key);
    }
  }
  const manifests = (await old.list('manifests/')).map((o) => o.key).filter((key) => EXPORTED_TABLES.some((t) => key === manifestName(t.folder)));
  await old.delete([...keys, ...manifests]);
  return keys.length + manifests.length;
}
