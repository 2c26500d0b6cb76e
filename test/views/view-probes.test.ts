// The probes of the hinted views (`analytics.<view>_filled()`, sql/views/): each gives the answer of its view — a row or
// none, a value in each hinted column or none — on a workspace that is not the demo (seed 7, UUID ids), as loaded and
// after edits that empty each view or column in turn, so every probe is compared both filled and empty.
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { styledId } from '../../src/emulator/analytics/workspace-size.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { unfilledViews } from '../../src/views/unfilled-views.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';

const SEED = 7;
const APP = styledId(SEED, 'uuid', 'app_1');
const SEGMENT = styledId(SEED, 'uuid', 'seg_1');

const PIPELINE = `
name: probes
start_date: 2025-01-20
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", ${APP}], products: ["*", all] }
  revenue:           { unit: day, apps: ["*", ${APP}], products: ["*", all] }
  sessions:          { unit: day, apps: ["*", ${APP}], segments: ["*", ${SEGMENT}] }
  kpis:              { metrics: [dau, mau, new_users, uninstalls], apps: ["*", ${APP}] }
  event_counts:      { events: all, unit: day, apps: ["*", ${APP}], segments: ["*", ${SEGMENT}] }
  segment_size:      { segments: all }
  segments:          {}
  canvas_summary:    { canvases: all, variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: all }
  campaign_series:   { campaigns: all }
  campaigns:         {}
`;

/** Edits of the loaded data, each applied alone to a copy of the database. */
const SCENARIOS: Record<string, string> = {
  'as loaded': '',
  'no per-app, per-segment or per-product rows': `
    DELETE FROM sessions WHERE app_id <> '*' OR segment_id <> '*';
    DELETE FROM event_counts WHERE app_id <> '*' OR segment_id <> '*';
    DELETE FROM revenue WHERE app_id <> '*' OR product <> '*';
    DELETE FROM purchase_quantity WHERE app_id <> '*' OR product <> '*';
    DELETE FROM kpi_series WHERE app_id <> '*';`,
  'per-app and per-product rows whose values are NULL': `
    UPDATE revenue SET revenue = NULL WHERE app_id <> '*' OR product <> '*';
    UPDATE purchase_quantity SET purchase_quantity = NULL WHERE app_id <> '*';
    UPDATE sessions SET sessions = NULL WHERE app_id <> '*';`,
  'per-app revenue without a unit, and every per-app DAU 0': `
    UPDATE revenue SET unit = NULL WHERE app_id <> '*';
    UPDATE kpi_series SET value = 0 WHERE metric = 'dau' AND app_id <> '*';`,
  'per-app KPIs on other days than per-app sessions and revenue': `
    DELETE FROM kpi_series WHERE app_id <> '*' AND time >= TIMESTAMP '2025-02-01';
    DELETE FROM sessions WHERE app_id <> '*' AND time < TIMESTAMP '2025-02-01';
    DELETE FROM revenue WHERE app_id <> '*' AND time < TIMESTAMP '2025-02-01';`,
  'only the totals of purchases, and no totals of events': `
    DELETE FROM revenue WHERE app_id <> '*' OR product <> '*';
    DELETE FROM event_counts WHERE app_id = '*' AND segment_id = '*';
    DELETE FROM kpi_series WHERE app_id = '*';`,
  'every table of the views emptied': `
    DELETE FROM sessions; DELETE FROM event_counts; DELETE FROM revenue; DELETE FROM purchase_quantity;
    DELETE FROM kpi_series; DELETE FROM segment_size; DELETE FROM canvas_summary; DELETE FROM canvas_variant_summary;
    DELETE FROM canvas_step_summary; DELETE FROM campaign_series; DELETE FROM campaign_message_series;`,
};

/** The hinted views, each with its hinted columns, from the comments (as the run's summary reads them). */
async function hintedViews(wh: Warehouse): Promise<Map<string, string[]>> {
  const rows = await wh.query(
    `SELECT view_name AS v, NULL AS c FROM duckdb_views() WHERE schema_name = 'analytics' AND contains(comment, 'To fill: ')
     UNION ALL
     SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'analytics' AND contains(comment, 'To fill: ')
     ORDER BY 1, 2 NULLS FIRST`,
  );
  const views = new Map<string, string[]>();
  for (const r of rows) {
    const cols = views.get(String(r['v'])) ?? [];
    if (r['c'] !== null) cols.push(String(r['c']));
    views.set(String(r['v']), cols);
  }
  return views;
}

/** A view's answer read from the view itself: whether it has a row, and per column whether it holds a value. */
async function fullAnswer(wh: Warehouse, view: string, cols: readonly string[]): Promise<Record<string, boolean>> {
  const [row] = await wh.query(
    `SELECT count(*) > 0 AS "rows"${cols.map((c) => `, count("${c}") > 0 AS "${c}"`).join('')} FROM analytics."${view}"`,
  );
  return { ...row } as Record<string, boolean>;
}

describe('the probe of each hinted view', () => {
  let f: PipelineFixture;
  /** Per view (or view.column), the answers seen over the scenarios. */
  const seen = new Map<string, Set<boolean>>();

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: '2025-02-10T12:34:00Z',
      pipeline: PIPELINE,
      emulator: {
        seed: SEED,
        size: { apps: 2, products: 3, segments: 4, events: 4, canvases: 4, campaigns: 4 },
        idStyle: 'uuid',
        rateLimits: false,
      },
    });
    expect((await f.run()).status).toBe('succeeded');
  });
  afterAll(async () => f.close());

  it.each(Object.entries(SCENARIOS))('answers as its view does: %s', async (name, edit) => {
    const db = join(f.dir, `${name.replaceAll(/\W+/g, '-')}.duckdb`);
    await copyFile(f.db, db);
    const wh = await Warehouse.open(db, WAREHOUSE_TABLES, {});
    try {
      if (edit !== '') await wh.query(edit);
      const hinted = await hintedViews(wh);
      const expected: string[] = [];
      for (const [view, cols] of hinted) {
        const full = await fullAnswer(wh, view, cols);
        const [probe] = await wh.query(`SELECT * FROM analytics."${view}_filled"()`);
        expect([view, probe]).toEqual([view, full]);
        for (const [key, filled] of Object.entries(full)) {
          const k = key === 'rows' ? view : `${view}.${key}`;
          seen.set(k, (seen.get(k) ?? new Set()).add(filled));
          if (!filled && (key === 'rows' || full['rows'])) expected.push(k);
        }
      }
      const unfilled = (await unfilledViews(wh)).map((u) =>
        u.column === undefined ? u.view : `${u.view}.${u.column}`,
      );
      // Views without a hint of their own (only hinted columns) are not listed when empty.
      const listedViews = new Set(
        (
          await wh.query(
            `SELECT view_name AS v FROM duckdb_views() WHERE schema_name = 'analytics' AND contains(comment, 'To fill: ')`,
          )
        ).map((r) => String(r['v'])),
      );
      expect(unfilled.sort()).toEqual(expected.filter((k) => k.includes('.') || listedViews.has(k)).sort());
    } finally {
      await wh.close();
    }
  });

  it('is compared, over the scenarios, both filled and empty for every hinted view and column', () => {
    expect(seen.size).toBeGreaterThan(20);
    const oneSided = [...seen].filter(([, answers]) => answers.size < 2).map(([k]) => k);
    expect(oneSided).toEqual([]);
  });
});
