// Crashes: `engage-etl run` is SIGKILLed at 25 moments — mid-request (timed against the emulator's request count, with
// latency so the request is in flight), inside a commit's transaction, between commits, after a Parquet file is staged,
// after it is renamed into place, after a manifest, after the export — then rerun. After every kill a reader sees only
// whole Parquet files and manifests naming existing files; after the successful rerun the tables and Parquet equal a clean
// run's and no temp file is left.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { CRASH_AT_ENV } from '../../src/process/crash-point.js';
import type { CrashPoint } from '../../src/process/crash-point.js';
import type { CliResult, Target } from './reliability-helpers.js';
import {
  CLI,
  PIPELINE_YAML,
  SecretScan,
  assertReadersSeeWholeFiles,
  leftovers,
  listFiles,
  makeTarget,
  parquetChecksums,
  removeDir,
  runInProcess,
  spawnRun,
  startEmulator,
  tableChecksums,
  tempDir,
} from './reliability-helpers.js';

/** `request:n` kills when the emulator has received the run's n-th request; the others name a crash point. */
type Kill = `request:${number}` | `${CrashPoint}:${number}`;

// Each chain starts from nothing, is killed at each moment in turn (every rerun resumes what the previous left), and
// ends with a run that succeeds. A run makes only a few commits (the committer batches what arrives meanwhile) and
// exports only dirty partitions, so each kill is placed where the state left by the previous one makes it reachable: a
// second commit only in a run (nearly) from nothing, since a resumed run may have so little left that one commit takes
// it all; at most 10 requests in a run that follows another, since a run with every unit loaded makes 19 (its look-back).
// The export writes one file per table and year (about 15 here), and a rerun only the tables a kill left unpublished.
const CHAINS: Kill[][] = [
  ['request:4', 'commit-merged:2', 'request:30', 'commit-merged:1', 'parquet-staged:1'],
  ['request:80', 'commit-done:1', 'request:10', 'parquet-placed:1', 'manifest-written:3'],
  ['request:120', 'parquet-staged:10', 'parquet-placed:3', 'manifest-written:1', 'export-done:1'],
  ['commit-merged:1', 'commit-done:1', 'request:50', 'manifest-written:2', 'parquet-placed:5'],
  ['export-done:1', 'request:3', 'commit-done:1'],
];

/** The kills of the full-refresh test: after a file is placed, after a manifest is written. */
const EMPTIED_KILLS: readonly Kill[] = ['parquet-placed:1', 'manifest-written:1'];

describe('a run killed with SIGKILL at 25 moments', () => {
  let dir: string;
  let em: Emulator;
  let clean: { tables: Record<string, string>; parquet: Record<string, string> };
  const secrets = new SecretScan();

  beforeAll(async () => {
    if (!existsSync(CLI.replace(/bin[/\\]engage-etl\.js$/, 'dist/src/cli/main.js')))
      throw new Error('the CLI is not built: run `npm run build` first (npm test does)');
    dir = await tempDir();
    // Latency keeps each request in flight long enough for a kill timed on the emulator's count to land mid-request.
    em = await startEmulator({ latencyMs: 10 });
    const t = await makeTarget(dir, 'clean');
    await runInProcess(em, t);
    clean = { tables: await tableChecksums(t.db), parquet: await parquetChecksums(t.out) };
  });

  afterAll(async () => {
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  async function killAt(t: Target, kill: Kill): Promise<CliResult> {
    const [point, n] = kill.split(':') as [string, string];
    if (point !== 'request') {
      return spawnRun(t, em, em.demoApiKey, [], { [CRASH_AT_ENV]: kill }).done;
    }
    const before = em.stats.requests;
    const { child, done } = spawnRun(t, em, em.demoApiKey);
    const timer = setInterval(() => {
      if (em.stats.requests - before >= Number(n)) child.kill('SIGKILL');
    }, 2);
    try {
      return await done;
    } finally {
      clearInterval(timer);
    }
  }

  it.each(CHAINS.map((chain, i) => [i + 1, chain] as const))(
    'chain %i: %j, then a rerun, ends equal to a clean run with no temp files',
    async (i, chain) => {
      const t = await makeTarget(dir, `chain-${i}`);
      secrets.target(t);
      for (const kill of chain) {
        const result = await killAt(t, kill);
        secrets.text(result.stdout, result.stderr);
        expect(
          result.signal,
          `${kill} was not reached: the run ended with code ${result.code}\n${result.stderr.slice(-500)}`,
        ).toBe('SIGKILL');
        await assertReadersSeeWholeFiles(t.out);
      }
      const rerun = await spawnRun(t, em, em.demoApiKey).done;
      secrets.text(rerun.stdout, rerun.stderr);
      expect(rerun.code, rerun.stderr.slice(-1000)).toBe(0);
      expect(rerun.stderr).toContain('took over a stale lock');
      await assertReadersSeeWholeFiles(t.out);
      expect(await leftovers(t.dir)).toEqual([]);
      expect(await tableChecksums(t.db)).toEqual(clean.tables);
      expect(await parquetChecksums(t.out)).toEqual(clean.parquet);
      // The killed runs are closed in the run log, not left 'running' forever.
      const wh = await Warehouse.open(t.db, WAREHOUSE_TABLES, { readOnly: true });
      try {
        const log = await wh.query(`SELECT "status", count(*) AS n FROM "_etl_runs" GROUP BY ALL ORDER BY ALL`);
        expect(log.find((r) => r['status'] === 'running')).toBeUndefined();
        expect(log.find((r) => r['status'] === 'succeeded')?.['n']).toBe(1);
        expect(Number(log.find((r) => r['status'] === 'abandoned')?.['n'])).toBe(chain.length); // every kill came after the run was logged
      } finally {
        await wh.close();
      }
    },
  );

  it('a full refresh that empties partitions, killed after placing a file and after a manifest: no manifest names a missing file, the rerun removes the emptied files', async () => {
    const t = await makeTarget(dir, 'emptied');
    secrets.target(t);
    await runInProcess(em, t);
    expect((await listFiles(t.out)).some((f) => f.includes('year=2025/'))).toBe(true);
    // A later start_date: a full refresh leaves March empty in every series table.
    const later = PIPELINE_YAML.replace('start_date: 2025-03-01', 'start_date: 2025-04-01');
    await writeFile(t.pipeline, later);
    for (const kill of EMPTIED_KILLS) {
      const result = await spawnRun(t, em, em.demoApiKey, ['--full-refresh'], { [CRASH_AT_ENV]: kill }).done;
      secrets.text(result.stdout, result.stderr);
      expect(result.signal, `${kill} was not reached: ${result.stderr.slice(-300)}`).toBe('SIGKILL');
      await assertReadersSeeWholeFiles(t.out);
    }
    const rerun = await spawnRun(t, em, em.demoApiKey).done;
    expect(rerun.code, rerun.stderr.slice(-500)).toBe(0);
    await assertReadersSeeWholeFiles(t.out);
    expect(await leftovers(t.dir)).toEqual([]);

    const clean = await makeTarget(dir, 'emptied-clean', later);
    await runInProcess(em, clean);
    expect(await tableChecksums(t.db)).toEqual(await tableChecksums(clean.db));
    expect(await parquetChecksums(t.out)).toEqual(await parquetChecksums(clean.out));
  });

  it('plans 25 kills at every kind of moment (each test above asserts that each of its own kills landed)', () => {
    const all: Kill[] = [...CHAINS.flat(), ...EMPTIED_KILLS];
    expect(all.length).toBe(25);
    expect(new Set(all.map((k) => k.split(':')[0])).size).toBe(7);
  });
});
