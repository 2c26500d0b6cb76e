// Repairs without a human: a manifest of the wrong shape or not JSON, a Parquet file truncated by hand, a file the
// manifest names that was deleted — the next `run` finds it, rewrites it from DuckDB and says so; `export` always does.
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import type { CliResult, Target } from './reliability-helpers.js';
import {
  SecretScan,
  assertReadersSeeWholeFiles,
  leftovers,
  listFiles,
  makeTarget,
  parquetChecksums,
  removeDir,
  runCli,
  runInProcess,
  spawnRun,
  startEmulator,
  tempDir,
} from './reliability-helpers.js';

describe('damaged Parquet output', () => {
  let dir: string;
  let em: Emulator;
  let t: Target;
  let good: Record<string, string>;
  const secrets = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir();
    em = await startEmulator();
    t = await makeTarget(dir, 'repair');
    secrets.target(t);
    await runInProcess(em, t);
    good = await parquetChecksums(t.out);
  });

  afterAll(async () => {
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  async function run(): Promise<CliResult> {
    const result = await spawnRun(t, em, em.demoApiKey).done;
    secrets.text(result.stdout, result.stderr);
    return result;
  }

  async function exportAll(): Promise<CliResult> {
    const result = await runCli(['export', '--db', t.db, '--out', t.out]);
    secrets.text(result.stdout, result.stderr);
    return result;
  }

  /** The output is whole again: equal to before the damage, every manifest naming exactly the files on disk with their sizes. */
  async function expectRepaired(): Promise<void> {
    expect(await parquetChecksums(t.out)).toEqual(good);
    await assertReadersSeeWholeFiles(t.out);
    for (const table of Object.keys(good)) {
      const manifest = JSON.parse(await readFile(manifestOf(table), 'utf8')) as TableManifest;
      const files = (await listFiles(join(t.out, table))).filter((f) => f.endsWith('.parquet'));
      expect(manifest.files.map((f) => f.path)).toEqual(files);
    }
    expect(await leftovers(t.dir)).toEqual([]);
  }

  const year = (table: string, y: string) => join(t.out, table, `year=${y}`, 'data.parquet');
  const manifestOf = (table: string) => join(t.out, 'manifests', `${table}.json`);

  it('a manifest of the wrong shape: the next run rebuilds it and says so', async () => {
    await writeFile(manifestOf('revenue'), JSON.stringify({ table: 'revenue', files: 3 }));
    const result = await run();
    expect(result.code, result.stderr.slice(-500)).toBe(0);
    expect(result.stderr).toMatch(
      /repaired revenue in .* from DuckDB: manifests\/revenue\.json has the wrong shape: \\?"files\\?" is not a list/,
    );
    await expectRepaired();
  });

  it('a Parquet file truncated by hand: the next run rewrites it from DuckDB and says so', async () => {
    const file = year('sessions', '2025');
    const size = (await readFile(file)).length;
    await truncate(file, Math.floor(size / 2));
    const result = await run();
    expect(result.code, result.stderr.slice(-500)).toBe(0);
    expect(result.stderr).toContain('repaired sessions');
    expect(result.stderr).toContain('year=2025/data.parquet: no Parquet magic bytes');
    await expectRepaired();
  });

  it('a file the manifest names, deleted: the next run puts it back', async () => {
    await rm(year('revenue', '2025'));
    const result = await run();
    expect(result.code, result.stderr.slice(-500)).toBe(0);
    expect(result.stderr).toContain('year=2025/data.parquet is named by manifests/revenue.json but missing');
    await expectRepaired();
  });

  it('`export` repairs a manifest that is not JSON and a truncated file at once', async () => {
    await writeFile(manifestOf('purchase_quantity'), '{"table": "purchase_quan');
    await truncate(year('revenue', '2025'), 100);
    const result = await exportAll();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('repaired purchase_quantity: manifests/purchase_quantity.json is not JSON');
    expect(result.stderr).toContain('repaired revenue: year=2025/data.parquet');
    await expectRepaired();
  });

  it('a run over undamaged output reports no repair', async () => {
    const result = await run();
    expect(result.code, result.stderr.slice(-500)).toBe(0);
    expect(result.stderr).not.toContain('repaired');
    await expectRepaired();
  });
});
