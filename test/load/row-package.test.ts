// A load package's files as DuckDB will read them: every line in the order added, long values whole, and nothing of a
// call whose rows were refused.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { RowPackage } from '../../src/load/row-package.js';
import { MONEY, col, defineTable } from '../../src/load/table-definition.js';
import { WarehouseTables } from '../../src/load/warehouse-tables.js';
import { WAREHOUSE_TABLES, tableSpec } from '../../src/streams/table-specs.js';
import { tempDirPerTest, utc } from './warehouse-helpers.js';

const t = tempDirPerTest();
const sessions = tableSpec('sessions');

function row(app: string, day: string, n: number): Record<string, unknown> {
  return { app_id: app, segment_id: '*', unit: 'day', time: utc(day), sessions: n };
}

describe('a load package', () => {
  it('writes every line in the order added, across many calls and a value longer than its buffer', async () => {
    const pkg = new RowPackage(t.dir, WAREHOUSE_TABLES);
    const long = `app-${'é'.repeat(40_000)}`;
    const added: string[] = [];
    for (let call = 0; call < 300; call++) {
      const rows = Array.from({ length: 50 }, (_, i) =>
        row(call === 150 && i === 7 ? long : `app_${call}`, '2025-03-01', i),
      );
      pkg.add(sessions, rows);
      for (const r of rows) added.push(`${String(r.app_id)}:${String(r.sessions)}`);
    }
    const [staged] = pkg.close().tables;
    expect(staged?.rows).toBe(15_000);
    const lines = readFileSync(staged?.file as string, 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(15_000);
    // Each line: sequence number, then the columns in table order, text quoted.
    expect(lines.map((l) => l.split(','))).toSatisfy((fields: string[][]) =>
      fields.every((f, i) => f[0] === String(i)),
    );
    expect(
      lines.map((l) => {
        const f = l.split(',');
        return `${(f[1] as string).slice(1, -1)}:${f[5]}`;
      }),
    ).toEqual(added);
    expect(pkg.bytes).toBe(Buffer.byteLength(readFileSync(staged?.file as string)));
  });

  it('keeps nothing of a call that throws on a bad row, and goes on with the next call', async () => {
    const pkg = new RowPackage(t.dir, WAREHOUSE_TABLES);
    pkg.add(sessions, [row('app_1', '2025-03-01', 1)]);
    expect(() =>
      pkg.add(sessions, [row('app_2', '2025-03-01', 2), { ...row('app_3', '2025-03-01', 3), app_id: null }]),
    ).toThrow(/a key column must have a value/);
    pkg.add(sessions, [row('app_4', '2025-03-01', 4)]);
    const [staged] = pkg.close().tables;
    const apps = readFileSync(staged?.file as string, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => l.split(',')[1]);
    expect(apps).toEqual(['"app_1"', '"app_4"']);
    expect(staged?.rows).toBe(2);
  });
  it("writes a table's replace scopes to a file of their own in the rows' staged form, and refuses scopes naming other columns", async () => {
    const pkg = new RowPackage(t.dir, WAREHOUSE_TABLES);
    const variants = tableSpec('canvas_variant_summary');
    pkg.addScopes(variants, ['canvas_id', 'day'], [['cv,"1"', utc('2024-03-01')]]);
    expect(() => pkg.addScopes(variants, ['canvas_id', 'day'], [['cv_2', utc('2024-03-01T12:00:00Z')]])).toThrow(
      /replace scope of canvas_variant_summary row 1 column "day"/,
    );
    pkg.addScopes(variants, ['canvas_id', 'day'], [['cv_3', utc('2024-03-02')]]);
    expect(() => pkg.addScopes(variants, ['canvas_id'], [['cv_4']])).toThrow(/name different columns/);
    expect(() => pkg.addScopes(tableSpec('canvas_steps'), ['canvas'], [['cv_4']])).toThrow(/unknown column "canvas"/);
    const { tables, scopes } = pkg.close();
    expect(tables).toEqual([]);
    expect(scopes.map((s) => [s.spec.name, s.columns, s.rows])).toEqual([
      ['canvas_variant_summary', ['canvas_id', 'day'], 2],
    ]);
    const days = (day: string) => String(utc(day).getTime() / 86_400_000);
    expect(readFileSync(scopes[0]!.file, 'utf8')).toBe(
      `"cv,""1""",${days('2024-03-01')}\n"cv_3",${days('2024-03-02')}\n`,
    );
  });

  it('reads every column by its name, whatever characters the name holds, and DuckDB reads each value back', async () => {
    // The package's encoder is generated code with the column names in it: names with quotes, backslashes, a line break
    // or what looks like code must stay names.
    const odd = defineTable({
      name: 'odd_names',
      description: 'columns whose names test the generated encoder',
      columns: [
        col('id', 'VARCHAR'),
        col("it's", 'BIGINT'),
        col('say "hi"', 'DOUBLE'),
        col('back\\slash', MONEY),
        col('line\nbreak', 'INTEGER'),
        col('"]); throw 1; //', 'BOOLEAN'),
        col('at', 'TIMESTAMP'),
        col('on', 'DATE'),
        col('tags', 'VARCHAR[]'),
        col('doc', 'JSON'),
        col('kind', 'VARCHAR', { allowed: ['a', 'b'] }),
      ],
      key: ['id'],
    });
    const tables = new WarehouseTables([odd], new Map());
    const pkg = new RowPackage(t.dir, tables);
    const values = {
      id: 'r,"1"',
      "it's": 2 ** 53 - 1,
      'say "hi"': 0.1,
      'back\\slash': 12.34,
      'line\nbreak': -7,
      '"]); throw 1; //': true,
      at: utc('2024-02-29T23:59:59.123Z'),
      on: utc('2024-02-29'),
      tags: ['a', 'b,"c"'],
      doc: { k: [1, 'two'] },
      kind: 'b',
    };
    const nulls = Object.fromEntries(Object.keys(values).map((k) => [k, null]));
    pkg.add(odd, [values, { ...nulls, id: 'r2' }]);
    expect(() => pkg.add(odd, [{ ...values, kind: 'c' }])).toThrow(
      /odd_names row 2 column "kind": expected one of "a", "b"/,
    );
    expect(() => pkg.add(odd, [{ ...values, "it's": 1.5 }])).toThrow(/odd_names row 2 column "it's"/);
    const [staged] = pkg.close().tables;

    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      await conn.run(tables.staging.ddl('stage'));
      await conn.run(tables.staging.load('stage', staged!));
      const read = await conn.runAndReadAll(`SELECT ${staged!.select.join(', ')} FROM stage ORDER BY "_seq"`);
      const [first, second] = read.getRowObjectsJS() as [Record<string, unknown>, Record<string, unknown>];
      expect(first).toMatchObject({
        id: 'r,"1"',
        "it's": BigInt(2 ** 53 - 1),
        'say "hi"': 0.1,
        'line\nbreak': -7,
        '"]); throw 1; //': true,
        tags: ['a', 'b,"c"'],
        kind: 'b',
      });
      expect(String(first['back\\slash'])).toBe('12.34');
      expect((first.at as Date).toISOString()).toBe('2024-02-29T23:59:59.123Z');
      expect((first.on as Date).toISOString().slice(0, 10)).toBe('2024-02-29');
      expect(JSON.parse(String(first.doc))).toEqual({ k: [1, 'two'] });
      expect(Object.entries(second).filter(([, v]) => v !== null)).toEqual([['id', 'r2']]);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
