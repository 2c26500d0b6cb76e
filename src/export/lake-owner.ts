// Which database a lake's layout belongs to. Every manifest names the database that published it (`database`: an id the
// database keeps in `_etl_settings`, copied with the file); an export replaces and deletes only what manifests of its own
// database name, and refuses, before anything is touched, a layout whose manifests another database wrote — as
// Terraform refuses a state of another lineage. Manifests of versions before the id are adopted by the first export.
import { ConfigError } from '../errors.js';
import { SettingsStore } from '../load/settings-store.js';
import type { Warehouse } from '../load/warehouse.js';
import { eachLimited } from '../store/place.js';
import type { Place } from '../store/place.js';
import { EXPORTED_TABLES } from './parquet-layout.js';
import { inspectManifest, manifestName } from './table-manifest.js';

const READS_IN_FLIGHT = 8;

/** The tables of `place` whose manifest another database published, with that database's id. */
export async function foreignManifests(place: Place, id: string): Promise<{ table: string; database: string }[]> {
  const foreign: { table: string; database: string }[] = [];
  await eachLimited(EXPORTED_TABLES, READS_IN_FLIGHT, async ({ folder }) => {
    const reading = await inspectManifest(place, folder);
    const owner = reading.state === 'ok' ? reading.manifest.database : undefined;
    if (owner !== undefined && owner !== id) foreign.push({ table: folder, database: owner });
  });
  return foreign.sort((a, b) => a.table.localeCompare(b.table));
}

/**
 * Make sure `place` (a lake, or one workspace's share of it) is this database's to publish into; returns the database's
 * id for the manifests it writes. A ConfigError (exit 2) naming the tables and how to proceed when another database
 * published there: replacing those files would lose that database's data.
 */
export async function claimLake(wh: Warehouse, place: Place): Promise<string> {
  const id = await new SettingsStore(wh).databaseId();
  const foreign = await foreignManifests(place, id);
  if (foreign.length > 0) {
    const shown = foreign
      .slice(0, 3)
      .map((f) => `${manifestName(f.table)} (database ${f.database})`)
      .join(', ');
    throw new ConfigError(
      '--out',
      `${place.description} holds tables another engage-etl database published — ${shown}${foreign.length > 3 ? `, and ${foreign.length - 3} more` : ''}; this database is ${id}. ` +
        "Publishing here would replace and delete that database's files, so nothing was changed. Pass the --db that published them, another --out, " +
        'or give each pipeline its own workspace:; to hand this lake over to this database on purpose, delete those manifests first',
    );
  }
  return id;
}
