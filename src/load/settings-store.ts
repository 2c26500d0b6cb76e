// `_etl_settings`: what a database keeps about itself — the workspace it exports (recorded by the runs) and its id, which
// every manifest it publishes names (export/lake-owner.ts). The SQL that reads and writes the table lives here.
import { randomUUID } from 'node:crypto';
import { VARCHAR } from '@duckdb/node-api';
import type { Warehouse } from './warehouse.js';

export class SettingsStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** The workspace this database exports (`workspace:` of its pipeline, recorded by the runs), or undefined. */
  async workspace(): Promise<string | undefined> {
    return this.#read('workspace');
  }

  /** Record the workspace this database exports (undefined: none). */
  async setWorkspace(workspace: string | undefined): Promise<void> {
    await this.#wh.transaction('recording the workspace', async (conn) => {
      await conn.run(`DELETE FROM "_etl_settings" WHERE "key" = 'workspace'`);
      if (workspace !== undefined)
        await conn.run(`INSERT INTO "_etl_settings" VALUES ('workspace', $1)`, [workspace], [VARCHAR]);
    });
  }

  /** This database's id, made (and kept) the first time it is asked for. */
  async databaseId(): Promise<string> {
    const found = await this.#read('database_id');
    if (found !== undefined) return found;
    const id = randomUUID();
    await this.#wh.query(`INSERT INTO "_etl_settings" VALUES ('database_id', $1)`, [id]);
    return id;
  }

  async #read(key: 'workspace' | 'database_id'): Promise<string | undefined> {
    const [row] = await this.#wh.query(`SELECT "value" FROM "_etl_settings" WHERE "key" = $1`, [key]);
    return typeof row?.['value'] === 'string' ? row['value'] : undefined;
  }
}
