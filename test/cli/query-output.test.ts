// `engage-etl query` output through DuckDB's own writers: every format keeps DATE a date, INTERVAL an interval, NULL
// a null, lists and structs whole; stdout is streamed through a FIFO, --output written by DuckDB itself.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeQueryResult } from '../../src/cli/query-output.js';
import type { QueryFormat } from '../../src/cli/query-output.js';

const SQL = `SELECT * FROM (VALUES
  (1, DATE '2024-01-01', INTERVAL 26 HOUR, 12.5::DOUBLE, ['a', 'b'], {'k': 1, 'v': 'x'}, 'plain'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL)
) AS t("id", "day", "wait", "amount", "tags", "pair", "note") ORDER BY "id";`;

let dir: string;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engage-query-test-'));
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(async () => {
  conn.closeSync();
  instance.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** Run the query to a collecting stream that already holds `before`, as a redirected stdout might. */
async function toStdout(format: QueryFormat, sql = SQL, before = ''): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  out.write(before);
  await writeQueryResult(conn, sql, { format }, out);
  return Buffer.concat(chunks).toString('utf8');
}

describe('query output', () => {
  it('CSV: a date as 2024-01-01, an interval as DuckDB writes it, NULL empty, lists and structs in their SQL spelling', async () => {
    expect(await toStdout('csv')).toBe(
      [
        'id,day,wait,amount,tags,pair,note',
        `1,2024-01-01,26:00:00,12.5,"[a, b]","{'k': 1, 'v': x}",plain`,
        '2,,,,,,',
        '',
      ].join('\n'),
    );
  });

  it('JSON and NDJSON: the same values, a date never turned into a UTC timestamp', async () => {
    const expected = [
      {
        id: 1,
        day: '2024-01-01',
        wait: '26:00:00',
        amount: 12.5,
        tags: ['a', 'b'],
        pair: { k: 1, v: 'x' },
        note: 'plain',
      },
      { id: 2, day: null, wait: null, amount: null, tags: null, pair: null, note: null },
    ];
    expect(JSON.parse(await toStdout('json'))).toEqual(expected);
    const lines = (await toStdout('ndjson')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(expected);
  });

  it('Parquet: DuckDB reads back the same types and values, hyparquet the same rows', async () => {
    const file = join(dir, 'out.parquet');
    await writeQueryResult(conn, SQL, { format: 'parquet', output: file }, new PassThrough());
    const types = (
      await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`)
    ).getRows();
    expect(types).toEqual([
      ['id', 'INTEGER'],
      ['day', 'DATE'],
      ['wait', 'INTERVAL'],
      ['amount', 'DOUBLE'],
      ['tags', 'VARCHAR[]'],
      ['pair', 'STRUCT(k INTEGER, v VARCHAR)'],
      ['note', 'VARCHAR'],
    ]);
    const same = (
      await conn.runAndReadAll(
        `SELECT count(*) FROM (FROM read_parquet('${file}') EXCEPT ALL ${SQL.replace(/ ORDER BY "id";$/, '')})`,
      )
    ).getRows();
    expect(same).toEqual([[0n]]);
    // hyparquet does not decode INTERVAL (DuckDB did above): it reads every other column, a NULL list or struct as undefined.
    const rows = await parquetReadObjects({
      file: await asyncBufferFromFile(file),
      compressors,
      columns: ['id', 'day', 'amount', 'tags', 'pair', 'note'],
    });
    expect(rows.map((r) => [r.id, r.tags ?? null, r.pair ?? null, r.note])).toEqual([
      [1, ['a', 'b'], { k: 1, v: 'x' }, 'plain'],
      [2, null, null, null],
    ]);
    expect(rows[0]?.day).toEqual(new Date('2024-01-01T00:00:00Z'));
  });

  it('table: numbers right-aligned, NULL spelled out, a date as a date, and only the first rows kept', async () => {
    expect(await toStdout('table')).toBe(
      [
        'id  day         wait      amount  tags        pair                note',
        '--  ----------  --------  ------  ----------  ------------------  -----',
        " 1  2024-01-01  26:00:00    12.5  ['a', 'b']  {'k': 1, 'v': 'x'}  plain",
        ' 2  NULL        NULL        NULL  NULL        NULL                NULL',
        '(2 rows)',
        '',
      ].join('\n'),
    );
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    await writeQueryResult(conn, 'SELECT range AS n FROM range(2500)', { format: 'table', maxTableRows: 3 }, out);
    expect(text).toBe(
      'n\n-\n0\n1\n2\n(2,500 rows, the first 3 shown; --format csv or --output FILE writes them all)\n',
    );
  });

  it('appends to what stdout already holds, and --output writes the file through DuckDB', async () => {
    expect(await toStdout('csv', 'SELECT 1 AS a', 'before\n')).toBe('before\na\n1\n');
    const file = join(dir, 'out.csv');
    await writeQueryResult(conn, "SELECT DATE '2025-03-01' AS d", { format: 'csv', output: file }, new PassThrough());
    expect(await readFile(file, 'utf8')).toBe('d\n2025-03-01\n');
  });

  it('reports a failing statement without hanging on the FIFO, and refuses an empty one', async () => {
    await expect(toStdout('csv', 'SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    await expect(toStdout('json', ' ; ')).rejects.toThrow(/the SQL is empty/);
  });

  it('table: "A; B" shows each statement\'s result in order, not only the last', async () => {
    const text = await toStdout('table', `SELECT 1 AS "first"; SELECT 'two' AS "second", 2 AS "n";`);
    expect(text).toMatch(
      /^-- statement 1 of 2\nfirst\n-----\n    1\n\(1 row\)\n\n-- statement 2 of 2\nsecond  n\n------  -\ntwo     2\n\(1 row\)\n$/,
    );
  });

  it('CSV of "A; B" is refused before anything runs, saying how to see each result', async () => {
    await expect(toStdout('csv', `SELECT 1; SELECT 2`)).rejects.toThrow(
      /holds 2 statements, and --format csv writes the result of one.*--format table/,
    );
  });
});
