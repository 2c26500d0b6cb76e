// When a database's `workspace:` changes (none → NAME, or one name → another), its Parquet moves: the next export
// writes every partition under the new layout, then the objects of the old one go — only the data files and manifests
// of tables whose manifest this database published (lake-owner.ts); another database's tables there stay.
import { SettingsStore } from '../load/settings-store.js';
import type { Warehouse } from '../load/warehouse.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import type { Place } from '../store/place.js';
import { EXPORTED_TABLES, isLayoutFile } from './parquet-layout.js';
import { inspectManifest, manifestName } from './table-manifest.js';

/**
 * Delete, in `lake`, the objects and manifests `wh` published in the layout of workspace `previous` (undefined: the
 * layout without workspace, which never reaches into a `workspace=…` folder). Returns how many objects were deleted.
 */
export async function retireLayout(lake: Place, previous: string | undefined, wh: Warehouse): Promise<number> {
  const old = placeOfWorkspace(lake, previous);
  const id = await new SettingsStore(wh).databaseId();
  const keys: string[] = [];
  for (const { folder } of EXPORTED_TABLES) {
    const reading = await inspectManifest(old, folder);
    if (reading.state === 'ok' && reading.manifest.database !== undefined && reading.manifest.database !== id) continue;
    if (reading.state !== 'missing') keys.push(manifestName(folder));
    for (const o of await old.list(`${folder}/`)) if (isLayoutFile(o.key.slice(folder.length + 1))) keys.push(o.key);
  }
  await old.delete(keys);
  return keys.length;
}
