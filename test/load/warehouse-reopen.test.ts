// Warehouse.reopen (issue 27): a writer closes the file and opens it again between transactions, so a long run starts
// afresh with what DuckDB keeps per instance; nothing committed is lost, commits go on, and the file's lock is the
// writer's again at once. Real DuckDB files in a temp folder.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { revenueRow, tempDirPerTest, utc } from './warehouse-helpers.js';

const t = tempDirPerTest();

const revenue = async (wh: Warehouse) => (await wh.query(`SELECT strftime("time", '%Y-%m-%d') AS day, revenue FROM "revenue" ORDER BY "time"`)).map((r) => `${String(r['day'])}=${String(r['revenue'])}`);

describe('Warehouse.reopen', () => {
  it('keeps what was committed, keeps its memory limit, and commits again on the new instance', async () => {
    const path = join(t.dir, 'w.duckdb');
    const wh = await Warehouse.open(path, { memoryLimit: '96MB' });
    try {
      await wh.commit({ runId: 'r1', loadedAt: utc('2024-03-05'), upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 1)] }], state: [] });
      expect(await wh.reopen()).toBe(true);
      expect(await revenue(wh)).toEqual(['2024-03-01=1']);
      expect(await wh.query(`SELECT current_setting('memory_limit') AS m`)).toEqual([{ m: '91.5 MiB' }]);
      await wh.commit({ runId: 'r1', loadedAt: utc('2024-03-05'), upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-02', 2)] }], state: [] });
      expect(await wh.reopen()).toBe(true);
      expect(await revenue(wh)).toEqual(['2024-03-01=1', '2024-03-02=2']);
    } finally {
      await wh.close();
    }
    // Closed for good: another process opens the file at once (the lock went with the last instance).
    const script = `import { DuckDBInstance } from '@duckdb/node-api';
      const db = await DuckDBInstance.create(${JSON.stringify(path)}, { access_mode: 'READ_ONLY' }); const c = await db.connect();
      console.log(JSON.stringify((await c.runAndReadAll('SELECT count(*)::INT AS n FROM revenue')).getRowObjects()));`;
    t.child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    const out = await new Promise<string>((ok) => {
      let text = '';
      t.child!.stdout!.on('data', (d: Buffer) => (text += d.toString()));
      t.child!.on('close', () => ok(text));
    });
    expect(JSON.parse(out)).toEqual([{ n: 2 }]);
  });

  it('does nothing for a read-only opener, or while another Warehouse of the process shares the instance', async () => {
    const path = join(t.dir, 'shared.duckdb');
    await (await Warehouse.open(path)).close();
    const reader = await Warehouse.open(path, { readOnly: true });
    try {
      expect(await reader.reopen()).toBe(false);
      expect(await reader.query(`SELECT count(*) AS n FROM "revenue"`)).toEqual([{ n: 0 }]);
    } finally {
      await reader.close();
    }
    const a = await Warehouse.open(path);
    const b = await Warehouse.open(path);
    try {
      expect(await a.reopen()).toBe(false);
      await a.commit({ runId: 'r1', loadedAt: utc('2024-03-05'), upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 5)] }], state: [] });
      expect(await revenue(b)).toEqual(['2024-03-01=5']);
    } finally {
      await a.close();
    }
    try {
      expect(await b.reopen()).toBe(true);
      expect(await revenue(b)).toEqual(['2024-03-01=5']);
    } finally {
      await b.close();
    }
  });
});
