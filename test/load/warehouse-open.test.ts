import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FatalError } from '../../src/errors.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { tempDirPerTest } from './warehouse-helpers.js';

const t = tempDirPerTest();

describe('Warehouse.open refuses what it cannot use', () => {
  it('says a file that is not a DuckDB database is not one, and how to fix it', async () => {
    const path = join(t.dir, 'notes.duckdb');
    await writeFile(path, 'these are my notes, not a database\n'.repeat(200));
    const open = Warehouse.open(path, WAREHOUSE_TABLES);
    await expect(open).rejects.toBeInstanceOf(FatalError);
    await expect(open).rejects.toThrow(`is not a DuckDB database: ${path} (move it away or pass another --db)`);
  });

  it('says another process holds the file when a second process has it open', async () => {
    const path = join(t.dir, 'held.duckdb');
    const first = await Warehouse.open(path, WAREHOUSE_TABLES);
    await first.close();
    const script = `import { DuckDBInstance } from '@duckdb/node-api';
      const db = await DuckDBInstance.create(${JSON.stringify(path)}); await db.connect(); console.log('ready'); setInterval(() => {}, 1000);`;
    t.child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((ok) => t.child!.stdout!.once('data', () => ok()));
    await expect(Warehouse.open(path, WAREHOUSE_TABLES)).rejects.toThrow(
      new RegExp(
        `another process holds the database ${path.replaceAll('.', '\\.')} \\(Conflicting lock is held in .*PID ${t.child.pid}\\)\\); wait for it`,
      ),
    );
  });

  it('opens an existing database read-only and refuses writes there', async () => {
    const path = join(t.dir, 'w.duckdb');
    await (await Warehouse.open(path, WAREHOUSE_TABLES)).close();
    const reader = await Warehouse.open(path, WAREHOUSE_TABLES, { readOnly: true });
    try {
      expect(await reader.query(`SELECT count(*) AS n FROM "revenue"`)).toEqual([{ n: 0 }]);
      await expect(reader.query(`DELETE FROM "revenue"`)).rejects.toThrow(/read-only/);
    } finally {
      await reader.close();
    }
  });

  it('says there is no database when opening a missing file read-only', async () => {
    await expect(Warehouse.open(join(t.dir, 'missing.duckdb'), WAREHOUSE_TABLES, { readOnly: true })).rejects.toThrow(
      /no database at .*missing\.duckdb; run `engage-etl run` first/,
    );
  });

  it('refuses a DuckDB file whose tables differ from this version, naming the table', async () => {
    const path = join(t.dir, 'old.duckdb');
    const wh = await Warehouse.open(path, WAREHOUSE_TABLES);
    await wh.query(`ALTER TABLE "revenue" ADD COLUMN "extra" INTEGER`);
    await wh.close();
    await expect(Warehouse.open(path, WAREHOUSE_TABLES)).rejects.toThrow(
      /table "revenue" of .* has columns \(.*extra\) but this version expects/,
    );
  });

  it('fails calls after close with a clear message', async () => {
    const wh = await Warehouse.open(join(t.dir, 'w.duckdb'), WAREHOUSE_TABLES);
    await wh.close();
    await expect(wh.query('SELECT 1')).rejects.toThrow(/is closed; open it again/);
  });
});
