// Secrets: runs that pass the key on the command line, through faults and retries, a refused key, an under-privileged
// key and a key pasted into the wrong flag leave it in no log line, no error message, no DuckDB table, no Parquet file.
// (Every other file of this suite scans its own runs the same way in its afterAll.)
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import type { Target } from './reliability-helpers.js';
import { SecretScan, UNTIL, makeTarget, removeDir, runCli, startEmulator, tempDir } from './reliability-helpers.js';

const LIMITED_KEY = 'rel-secret-limited-5b8e2c7a91d04f36';
const WRONG_KEY = 'rel-secret-wrong-c3a9e1f7b2d84065';

describe('secrets', () => {
  let dir: string;
  let em: Emulator;
  let t: Target;
  const scan = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir();
    em = await startEmulator({
      faultRate: 0.2,
      keys: [{ key: LIMITED_KEY, name: 'content-only', permissions: ['content_blocks.info'] }],
    });
    t = await makeTarget(dir, 'secrets');
    scan.target(t);
  });

  afterAll(async () => {
    await em?.close();
    await removeDir(dir);
  });

  const cli = async (args: string[]) => {
    const r = await runCli(args);
    scan.text(r.stdout, r.stderr);
    return r;
  };
  const run = (key: string, extra: string[] = []) =>
    cli([
      'run',
      '--pipeline',
      t.pipeline,
      '--base-url',
      em.url,
      '--api-key',
      key,
      '--db',
      t.db,
      '--out',
      t.out,
      '--until',
      UNTIL,
      ...extra,
    ]);

  it('appear in no log line, message, table or Parquet file after successful, failing and misused runs', async () => {
    const ok = await run(em.demoApiKey);
    expect(ok.code, ok.stderr.slice(-500)).toBe(0);
    expect(ok.stderr).toContain('"type":"retry"');
    expect((await run(em.demoApiKey, ['--json'])).code).toBe(0);
    expect((await run(WRONG_KEY)).stderr).toMatch(/401/);
    expect((await run(LIMITED_KEY)).stderr).toMatch(/403/);
    expect((await run(em.demoApiKey, ['--until', em.demoApiKey])).stderr).toMatch(
      /--until: "\*\*\*" is not an ISO 8601/,
    );
    expect((await run(WRONG_KEY, ['--from', `since ${WRONG_KEY}`])).stderr).toMatch(/--from: "since \*\*\*"/);
    const status = await cli(['status', '--db', t.db]);
    expect(status.code).toBe(0);
    // The 403 run failed its streams alone and published the rest, so it is the published database's last run.
    expect(status.stdout).toMatch(/^last run \S+: failed — .*403/m);
    expect((await cli(['query', 'SELECT * FROM "_etl_runs"', '--db', snapshotFiles(t.db).working])).stdout).toContain(
      'failed',
    );

    for (const key of [em.demoApiKey, WRONG_KEY, LIMITED_KEY]) {
      const found = await scan.find(key);
      expect(found.places, key).toEqual([]);
      expect(found.searched.texts).toBeGreaterThanOrEqual(8);
      expect(found.searched.tables).toBeGreaterThanOrEqual(15);
      expect(found.searched.files).toBeGreaterThanOrEqual(30);
    }
  }, 180_000);

  it('would be found: the scan reports a key planted in a log, a table row and a file', async () => {
    const planted = new SecretScan();
    planted.target(t);
    planted.text(`{"type":"retry","reason":"Bearer ${WRONG_KEY}"}`);
    await writeFile(join(t.dir, 'planted.txt'), `key=${WRONG_KEY}\n`);
    const found = await planted.find(WRONG_KEY);
    expect(found.places.some((p) => p.startsWith('text #'))).toBe(true);
    expect(found.places.some((p) => p.includes('planted.txt'))).toBe(true);
    // The failed runs' messages are in the run log: a key in one of them would be found there.
    expect((await planted.find('401')).places.some((p) => p.startsWith('table _etl_runs'))).toBe(true);
  });
});
