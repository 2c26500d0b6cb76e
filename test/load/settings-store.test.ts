// SettingsStore on a real DuckDB file: the workspace a database exports and its id.
import { beforeEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src/load/settings-store.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { warehousePerTest } from './warehouse-helpers.js';

const db = warehousePerTest('settings.duckdb');
let wh: Warehouse;

beforeEach(() => {
  wh = db.wh;
});

describe('SettingsStore', () => {
  it('knows no workspace in a new database', async () => {
    expect(await new SettingsStore(wh).workspace()).toBeUndefined();
  });

  it('replaces the recorded workspace, keeps one row for it, and forgets it when given none', async () => {
    const settings = new SettingsStore(wh);
    await settings.setWorkspace('acme-eu');
    await settings.setWorkspace('acme-us');
    expect(await settings.workspace()).toBe('acme-us');
    expect(await wh.query(`SELECT count(*) AS n FROM "_etl_settings" WHERE "key" = 'workspace'`)).toEqual([{ n: 1 }]);
    await settings.setWorkspace(undefined);
    expect(await settings.workspace()).toBeUndefined();
    expect(await wh.query(`SELECT count(*) AS n FROM "_etl_settings" WHERE "key" = 'workspace'`)).toEqual([{ n: 0 }]);
  });

  it('makes the database id once and keeps it across openings and workspace changes', async () => {
    const id = await new SettingsStore(wh).databaseId();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new SettingsStore(wh).setWorkspace('acme-eu');
    wh = await db.reopen();
    expect(await new SettingsStore(wh).databaseId()).toBe(id);
    expect(await new SettingsStore(wh).workspace()).toBe('acme-eu');
    expect(await wh.query(`SELECT count(*) AS n FROM "_etl_settings" WHERE "key" = 'database_id'`)).toEqual([{ n: 1 }]);
  });
});
