// Every CLI error path of run / status / export / query: one clear line on stderr, a non-zero exit, nothing written.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = resolve('bin/engage-etl.js');
const run = promisify(execFile);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
let db: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engage-cli-'));
  db = join(dir, 'engage.duckdb');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

function expectOneLineError(r: Result, pattern: RegExp): void {
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^engage-etl: /);
  expect(lines[0]).toMatch(pattern);
}

describe('engage-etl run refuses bad input before touching anything', () => {
  it('refuses to run without a source rather than loading fake data', async () => {
    const r = await cli(['run', '--db', db, '--out', join(dir, 'out')]);
    expectOneLineError(r, /--base-url.*ENGAGE_BASE_URL.*--emulator/);
    expect(existsSync(db)).toBe(false);
  });

  it('refuses --emulator together with --base-url', async () => {
    expectOneLineError(await cli(['run', '--emulator', '--base-url', 'http://127.0.0.1:9', '--db', db]), /--emulator/);
  });

  it('names the pipeline file and field of a bad definition', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'name: x\nstart_date: 2024-01-01\nstreams:\n  revenue: { unit: week }\n');
    expectOneLineError(
      await cli(['run', '--emulator', '--pipeline', file, '--db', db]),
      /bad\.yaml.*streams\.revenue\.unit/,
    );
  });

  it('names every mistake of a pipeline file on its one line, numbered, and exits 2', async () => {
    const file = join(dir, 'three-bad.yaml');
    await writeFile(file, 'name: x\nlookback_days: soon\nstreams:\n  revenue: { unit: week }\n');
    const r = await cli(['run', '--emulator', '--pipeline', file, '--db', db]);
    expect(r.code).toBe(2);
    expectOneLineError(
      r,
      /3 problems in the pipeline file; fix each of them: \(1\) \S*three-bad\.yaml at start_date: .* \(2\) \S*three-bad\.yaml:2:16 at lookback_days: .* \(3\) \S*three-bad\.yaml:4:\d+ at streams\.revenue\.unit: /,
    );
    expect(existsSync(db)).toBe(false);
  });

  it('names a missing pipeline file', async () => {
    expectOneLineError(
      await cli(['run', '--emulator', '--pipeline', join(dir, 'nope.yaml'), '--db', db]),
      /nope\.yaml/,
    );
  });

  it('refuses --from after --until, unparsable dates and unknown streams', async () => {
    expectOneLineError(
      await cli(['run', '--emulator', '--from', '2025-02-01', '--until', '2025-01-01', '--db', db]),
      /--from/,
    );
    expectOneLineError(await cli(['run', '--emulator', '--until', 'yesterday', '--db', db]), /--until.*yesterday/);
    expectOneLineError(await cli(['run', '--emulator', '--streams', 'revenue,purchases', '--db', db]), /purchases/);
    expect(existsSync(db)).toBe(false);
  });

  it('never prints the API key, even when a flag is wrong', async () => {
    const r = await cli(['run', '--base-url', 'not a url', '--api-key', 'sk-secret-1234abcd5678', '--db', db]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).not.toContain('sk-secret-1234abcd5678');
  });
});

describe('status, query and export', () => {
  it('status and query on a missing database say so', async () => {
    expectOneLineError(await cli(['status', '--db', join(dir, 'missing.duckdb')]), /missing\.duckdb/);
    expectOneLineError(await cli(['query', 'SELECT 1', '--db', join(dir, 'missing.duckdb')]), /missing\.duckdb/);
  });

  it('query reports a SQL error in one line and refuses an unknown format', async () => {
    await cli(['run', '--emulator', '--streams', 'email_templates', '--db', db, '--out', join(dir, 'out')]);
    expectOneLineError(await cli(['query', 'SELEC nonsense', '--db', db]), /syntax error/i);
    const bad = await cli(['query', 'SELECT 1', '--db', db, '--format', 'xml']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/xml/);
  });

  it('query prints tables, CSV and JSON', async () => {
    const table = await cli(['query', 'SELECT email_template_id FROM email_templates ORDER BY 1', '--db', db]);
    expect(table.stdout).toMatch(/email_template_id\n-+\ntpl_1\n/);
    // The demo says `ids: all`: every template the list showed is loaded.
    const listed = await cli([
      'query',
      "SELECT count(*) AS n FROM listed_objects WHERE listing = 'email_templates'",
      '--db',
      db,
      '--format',
      'csv',
    ]);
    const n = Number(/^n\n(\d+)\n$/.exec(listed.stdout)?.[1]);
    expect(n).toBeGreaterThan(8);
    const csv = await cli(['query', 'SELECT count(*) AS n FROM email_templates', '--db', db, '--format', 'csv']);
    expect(csv.stdout).toBe(`n\n${n}\n`);
    const json = await cli(['query', 'SELECT count(*) AS n FROM email_templates', '--db', db, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual([{ n }]);
  });

  it('report on a missing database says so; views prints the views over the Parquet tree it is given', async () => {
    expectOneLineError(
      await cli(['report', '--db', join(dir, 'missing.duckdb'), '--output', join(dir, 'r.html')]),
      /missing\.duckdb/,
    );
    expect(existsSync(join(dir, 'r.html'))).toBe(false);
    // The tree the email_templates run above exported: its tables read Parquet, the tables it lacks are empty views.
    const views = await cli(['views', '--parquet', join(dir, 'out')]);
    expect(views.code).toBe(0);
    expect(views.stdout).toContain(
      `read_parquet('${join(dir, 'out')}/email_templates/**/*.parquet', hive_partitioning = true)`,
    );
    expect(views.stdout).toMatch(/VIEW "main"."revenue" AS SELECT CAST\(NULL AS VARCHAR\) AS "app_id".* WHERE false;/);
    expect(views.stdout).toContain('CREATE OR REPLACE VIEW "analytics"."purchases_daily"');
  }, 30_000);

  it('query and report refuse a --memory-limit that is not a size, naming it (exit 2); report takes a valid one', async () => {
    for (const cmd of [
      ['query', 'SELECT 1'],
      ['report', '--output', join(dir, 'r-limit.html')],
    ]) {
      const r = await cli([...cmd, '--db', db, '--memory-limit', 'lots']);
      expect(r.code, cmd[0]).toBe(2);
      expect(r.stderr, cmd[0]).toMatch(/--memory-limit.*"lots" is not a memory size/);
    }
    expect(existsSync(join(dir, 'r-limit.html'))).toBe(false);
    const ok = await cli(['report', '--db', db, '--output', join(dir, 'r-limit.html'), '--memory-limit', '512 mib']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(dir, 'r-limit.html'))).toBe(true);
  }, 60_000);

  it('export refuses an --out that cannot be written', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expectOneLineError(await cli(['export', '--db', db, '--out', join(file, 'sub')]), /a-file/);
  });

  it('every command has --help', async () => {
    for (const cmd of ['run', 'status', 'export', 'query', 'emulator', 'views', 'report', 'dbt']) {
      const r = await cli([cmd, '--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout).toMatch(/Usage: engage-etl/);
    }
  });
});

describe('usage errors', () => {
  it('exit with 2 for a bad option of a subcommand, an unknown option and an unknown command', async () => {
    expect((await cli(['query', 'SELECT 1', '--format', 'xml'])).code).toBe(2);
    expect((await cli(['run', '--no-such-flag'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
  });
});
