// A database written before engage-etl kept the history of definitions, opened read-only by `status`, `query` and
// `report`: a real run against a workspace that is not the demo (seed 23), its six history tables then dropped (its
// analyst views, canvas_names_by_day among them, left as they are: the harder case). Nothing is refused; what reads a
// history table fails naming what is absent and that the next run creates it; and the next run does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { runCli } from '../reliability/reliability-helpers.js';

const HISTORIES = ['canvases', 'canvas_variants', 'canvas_steps', 'campaigns', 'campaign_messages', 'segments'].map(
  (t) => `${t}_history`,
);

const PIPELINE = `
name: older
start_date: 2024-06-10
lookback_days: 1
streams:
  canvas_summary: { canvases: all }
  canvas_details: { canvases: all }
  campaigns:      {}
  segment_size:   { segments: all }
`;

let f: PipelineFixture;

beforeAll(async () => {
  f = await PipelineFixture.create({
    now: '2024-06-15T12:00:00Z',
    pipeline: PIPELINE,
    emulator: { seed: 23, size: { canvases: 3, campaigns: 2, segments: 2 } },
  });
  await f.run();
  const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
  try {
    for (const table of HISTORIES) await wh.query(`DROP TABLE "${table}"`);
  } finally {
    await wh.close();
  }
}, 300_000);
afterAll(async () => f?.close());

describe('a database from before the history tables, read-only', () => {
  it('opens, naming the history tables it lacks', async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      expect([...wh.absentHistory].sort()).toEqual([...HISTORIES].sort());
    } finally {
      await wh.close();
    }
  });

  it('status shows the streams as usual, with a note of what is absent and what creates it', async () => {
    const text = await runCli(['status', '--db', f.db]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('canvas_summary');
    expect(text.stdout).toMatch(
      /note: this database was written before engage-etl kept the history of definitions: it has no .*canvases_history.*; the views that read them \(analytics\.[^)]*analytics\.canvas_names_by_day[^)]*analytics\.segment_names_by_day\) cannot be read either\. .*the next `engage-etl run` on it creates them/,
    );
    const json = await runCli(['status', '--db', f.db, '--json']);
    expect(json.code, json.stderr).toBe(0);
  });

  it('query reads the tables and views that do not need a history table, and says why one that does fails', async () => {
    const ok = await runCli(['query', 'SELECT count(*) AS n FROM canvas_summary', '--db', f.db, '--format', 'csv']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(Number(ok.stdout.trim().split('\n')[1])).toBeGreaterThan(0);
    const view = await runCli([
      'query',
      'SELECT count(*) AS n FROM analytics.canvas_daily',
      '--db',
      f.db,
      '--format',
      'csv',
    ]);
    expect(view.code, view.stderr).toBe(0);

    for (const sql of ['SELECT * FROM canvases_history', 'SELECT * FROM analytics.canvas_names_by_day']) {
      const failed = await runCli(['query', sql, '--db', f.db]);
      expect(failed.code, sql).toBe(1);
      expect(failed.stderr, sql).toMatch(/canvases_history/);
      expect(failed.stderr, sql).toContain('the next `engage-etl run` on it creates them, one version per stored row');
    }
  });

  it('report writes every chart, notes what is absent, and leaves the unreadable views out of the empty ones', async () => {
    const output = join(f.dir, 'report.html');
    const res = await runCli(['report', '--db', f.db, '--output', output]);
    expect(res.code, res.stderr).toBe(0);
    const html = await readFile(output, 'utf8');
    expect(html).toMatch(
      /data-note="absent-history">this database was written before engage-etl kept the history of definitions/,
    );
    expect(html).not.toMatch(/<tr><td><code>analytics\.canvas_names_by_day<\/code><\/td><td>canvas_summary/);
  });

  it('gains the history tables at the next run, one current version per stored row, counted in its summary, and the note goes', async () => {
    const run = await runCli([
      'run',
      '--pipeline',
      f.pipelinePath,
      '--base-url',
      f.emulator.url,
      '--api-key',
      f.emulator.demoApiKey,
      '--db',
      f.db,
      '--out',
      f.out,
      '--until',
      '2024-06-15T12:00:00Z',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      expect(wh.absentHistory).toEqual([]);
      const [current] = await wh.query(
        `SELECT count(*)::INTEGER AS n FROM "canvases_history" WHERE "_valid_to" IS NULL`,
      );
      const [stored] = await wh.query(`SELECT count(*)::INTEGER AS n FROM "canvases" WHERE "_removed_at" IS NULL`);
      expect(current!['n']).toBe(stored!['n']);
      expect(Number(stored!['n'])).toBeGreaterThan(0);
      // The summary lists each history table of the run's tables: the versions kept, and none opened or closed by a
      // run that found nothing changed (the versions were made when the database was opened, from the stored rows).
      expect(run.stdout).toMatch(/^ {2}history table +versions +opened +closed$/m);
      expect(run.stdout).toMatch(new RegExp(`^ {2}canvases_history +${String(current!['n'])} +0 +0$`, 'm'));
    } finally {
      await wh.close();
    }
    expect((await runCli(['status', '--db', f.db])).stdout).not.toContain('written before engage-etl kept the history');
  }, 300_000);
});
