// Two nights of the real pipeline against an emulator that is not the demo (seed 7, uuid ids): a Canvas and a campaign
// renamed in between keep both names in their history tables, with the edit instant between them; a Canvas archived in
// between has no current version and its last one closed; a day's series row joins to the name the Canvas had that
// day; the run summary counts the versions each night opened and closed; and the history tables are exported to
// Parquet and listed by `dbt` like every table.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { runCli } from '../reliability/reliability-helpers.js';
import type { AnalyticsWorkspace } from '../../src/emulator/analytics/analytics-workspace.js';
import { lastEditAt } from '../../src/emulator/analytics/lifecycle.js';
import { listedCampaigns, listedCanvases, listedSegments } from '../../src/emulator/analytics/workspace-listing.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const NOW = '2024-06-15T12:00:00Z';
const EDIT = '2024-06-16T03:00:00Z';
const NEXT_NIGHT = '2024-06-16T12:00:00Z';

const PIPELINE = `
name: history
start_date: 2024-06-13
lookback_days: 1
streams:
  canvas_summary:  { canvases: all, variant_breakdown: true, step_breakdown: true }
  canvas_details:  { canvases: all }
  campaigns:       {}
  campaign_series: { campaigns: all }
  segments:        {}
  segment_size:    { segments: all }
`;

const HISTORIES = [
  ['canvases', ['canvas_id']],
  ['canvas_variants', ['canvas_id', 'variant_id']],
  ['canvas_steps', ['canvas_id', 'step_id']],
  ['campaigns', ['campaign_id']],
  ['campaign_messages', ['campaign_id', 'variation_id']],
  ['segments', ['segment_id']],
] as const;

describe('a Canvas and a campaign edited between two nights', () => {
  let f: PipelineFixture;
  let ws: AnalyticsWorkspace;
  let canvasId: string;
  let oldCanvasName: string;
  let firstEdit: number;
  let variantId: string;
  let removedStep: string;
  let campaignId: string;
  let oldCampaignName: string;
  let archivedId: string;
  let segmentId: string;
  let oldSegmentName: string;
  let nights: RunSummary[];

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: NOW,
      pipeline: PIPELINE,
      emulator: { seed: 7, idStyle: 'uuid', size: { canvases: 4, campaigns: 3 } },
    });
    ws = f.emulator.state.analytics;
    const first = await f.run();

    const canvas = ws.canvases.find((c) => c.id === listedCanvases(ws, Date.parse(NOW))[0]!.id)!;
    [canvasId, oldCanvasName, firstEdit] = [
      canvas.id,
      canvas.details.name,
      lastEditAt(canvas.lifecycle, Date.parse(NOW)),
    ];
    variantId = canvas.details.variants[0]!.id;
    removedStep = canvas.details.steps.at(-1)!.id;
    canvas.details = {
      ...canvas.details,
      name: 'Renamed Canvas',
      variants: canvas.details.variants.map((v, i) => (i === 0 ? { ...v, name: 'Renamed variant' } : v)),
      steps: canvas.details.steps.slice(0, -1),
    };
    canvas.lifecycle = { ...canvas.lifecycle, editsMs: [...canvas.lifecycle.editsMs, Date.parse(EDIT)] };
    const campaign = ws.campaigns.find((c) => c.id === listedCampaigns(ws, Date.parse(NOW))[0]!.id)!;
    [campaignId, oldCampaignName] = [campaign.id, campaign.name];
    campaign.name = 'Renamed campaign';
    campaign.lifecycle = { ...campaign.lifecycle, editsMs: [...campaign.lifecycle.editsMs, Date.parse(EDIT)] };
    const listed = new Set(listedSegments(ws, Date.parse(NOW)).map((x) => x.id));
    const segment = ws.segments.find((x) => listed.has(x.id) && x.analyticsTrackingEnabled)!;
    [segmentId, oldSegmentName] = [segment.id, segment.name];
    segment.name = 'Renamed segment';
    segment.lifecycle = { ...segment.lifecycle, editsMs: [...segment.lifecycle.editsMs, Date.parse(EDIT)] };
    // Another Canvas is archived: the list stops showing it, and the run marks it removed.
    const archived = ws.canvases.find((c) => c.id === listedCanvases(ws, Date.parse(NOW))[1]!.id)!;
    archivedId = archived.id;
    archived.lifecycle = { ...archived.lifecycle, archivedMs: Date.parse(EDIT) };

    f.emulator.clock.set(NEXT_NIGHT);
    nights = [first, await f.run()];
  }, 300_000);
  afterAll(async () => f.close());

  it("keeps the Canvas's old name until the edit and its new name from the edit on", async () => {
    expect(canvasId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      await f.query(
        `SELECT "name", "_valid_from", "_valid_to" FROM "canvases_history" WHERE "canvas_id" = '${canvasId}' ORDER BY "_valid_from"`,
      ),
    ).toEqual([
      { name: oldCanvasName, _valid_from: new Date(firstEdit), _valid_to: new Date(EDIT) },
      { name: 'Renamed Canvas', _valid_from: new Date(EDIT), _valid_to: null },
    ]);
  });

  it("starts the renamed variant's version at the second night's --until (variants carry no edit time) and closes the removed step there", async () => {
    expect(
      await f.query(
        `SELECT "name", "_valid_to" FROM "canvas_variants_history" WHERE "canvas_id" = '${canvasId}' AND "variant_id" = '${variantId}' ORDER BY "_valid_from"`,
      ),
    ).toEqual([
      { name: expect.not.stringMatching(/^Renamed variant$/), _valid_to: new Date(NEXT_NIGHT) },
      { name: 'Renamed variant', _valid_to: null },
    ]);
    expect(
      await f.query(
        `SELECT "_valid_to" FROM "canvas_steps_history" WHERE "canvas_id" = '${canvasId}' AND "step_id" = '${removedStep}'`,
      ),
    ).toEqual([{ _valid_to: new Date(NEXT_NIGHT) }]);
  });

  it("keeps the campaign's old name until the edit and its new name after it", async () => {
    expect(
      await f.query(
        `SELECT "name", "_valid_to" FROM "campaigns_history" WHERE "campaign_id" = '${campaignId}' ORDER BY "_valid_from"`,
      ),
    ).toEqual([
      { name: oldCampaignName, _valid_to: new Date(EDIT) },
      { name: 'Renamed campaign', _valid_to: null },
    ]);
  });

  it('has exactly one current version per stored object, none for a removed one, and intervals that never overlap', async () => {
    for (const [table, key] of HISTORIES) {
      const on = key.map((k) => `a."${k}" = b."${k}"`).join(' AND ');
      const [overlaps] = await f.query(
        `SELECT count(*)::INTEGER AS n FROM "${table}_history" a JOIN "${table}_history" b ON ${on} AND a."_valid_from" < b."_valid_from"
         WHERE a."_valid_to" IS NULL OR a."_valid_to" > b."_valid_from"`,
      );
      expect(overlaps!['n'], table).toBe(0);
      const [perKey] = await f.query(
        `SELECT count(*)::INTEGER AS n FROM (SELECT count(*) AS c FROM "${table}_history" WHERE "_valid_to" IS NULL GROUP BY ${key.map((k) => `"${k}"`).join(', ')} HAVING c > 1)`,
      );
      expect(perKey!['n'], table).toBe(0);
      const removable =
        (
          await f.query(
            `SELECT count(*)::INTEGER AS n FROM information_schema.columns WHERE "table_name" = '${table}' AND "column_name" = '_removed_at'`,
          )
        )[0]!['n'] === 1;
      const current = await f.query(
        `SELECT ${key.map((k) => `"${k}"`).join(', ')} FROM "${table}_history" WHERE "_valid_to" IS NULL ORDER BY ALL`,
      );
      const stored = await f.query(
        `SELECT ${key.map((k) => `"${k}"`).join(', ')} FROM "${table}"${removable ? ' WHERE "_removed_at" IS NULL' : ''} ORDER BY ALL`,
      );
      expect(current, table).toEqual(stored);
      expect(current.length, table).toBeGreaterThan(0);
    }
  });

  it('closes the last version of a Canvas the list stopped showing, at its removal, and keeps none current', async () => {
    expect(await f.query(`SELECT "_removed_at" FROM "canvases" WHERE "canvas_id" = '${archivedId}'`)).toEqual([
      { _removed_at: new Date(NEXT_NIGHT) },
    ]);
    const versions = await f.query(
      `SELECT "_valid_from", "_valid_to" FROM "canvases_history" WHERE "canvas_id" = '${archivedId}' ORDER BY "_valid_from"`,
    );
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.at(-1)!['_valid_to']).toEqual(new Date(NEXT_NIGHT));
    expect(versions.filter((v) => v['_valid_to'] === null)).toEqual([]);
  });

  it("counts in each night's summary the versions it opened and closed per history table", async () => {
    const [first, second] = nights;
    const of = (s: RunSummary, table: string) => s.history.find((h) => h.table === table);
    expect(first!.history.map((h) => h.table).sort()).toEqual(HISTORIES.map(([t]) => `${t}_history`).sort());
    for (const [table] of HISTORIES) {
      const history = `${table}_history`;
      const [opened] = await f.query(
        `SELECT count(*)::INTEGER AS n FROM "${history}" WHERE "_run_id" = '${second!.runId}'`,
      );
      const [closed] = await f.query(`SELECT count(*)::INTEGER AS n FROM "${history}" WHERE "_valid_to" IS NOT NULL`);
      const [rows] = await f.query(`SELECT count(*)::INTEGER AS n FROM "${history}"`);
      // The first night opens a version per stored row and closes none; the second closes every version ever closed.
      expect(of(first!, history), history).toMatchObject({
        opened: first!.tables.find((t) => t.table === table)!.inserted,
        closed: 0,
      });
      expect(of(second!, history), history).toEqual({
        table: history,
        rows: rows!['n'],
        opened: opened!['n'],
        closed: closed!['n'],
      });
    }
    // At least the renamed Canvas (a version opened, one closed) and the archived one (one closed).
    expect(of(second!, 'canvases_history')!.opened).toBeGreaterThanOrEqual(1);
    expect(of(second!, 'canvases_history')!.closed).toBeGreaterThanOrEqual(2);
  });

  it('exports every history table to Parquet and lists it in the dbt sources, over the warehouse and over the Parquet tree', async () => {
    const lake = await readdir(f.out);
    for (const [table] of HISTORIES) expect(lake, table).toContain(`${table}_history`);
    const sources = async (args: string[]) => {
      const out = join(f.dir, `dbt-${args.length}`);
      const res = await runCli(['dbt', '--db', f.db, '--output', out, ...args]);
      expect(res.code, res.stderr).toBe(0);
      const yaml = parse(await readFile(join(out, 'models/engage_etl_sources.yml'), 'utf8')) as {
        sources: { name: string; tables: { name: string }[] }[];
      };
      return yaml.sources.find((s) => s.name === 'engage_etl')!.tables.map((t) => t.name);
    };
    const overWarehouse = await sources([]);
    for (const table of ['canvases', 'canvas_variants', 'canvas_steps', 'campaigns', 'campaign_messages', 'segments'])
      expect(overWarehouse).toContain(`${table}_history`);
    const overParquet = await sources(['--parquet', f.out]);
    for (const [table] of HISTORIES) expect(overParquet, table).toContain(`${table}_history`);
  });

  it("names each day's summary row with the name the Canvas had that day, in the warehouse and in the exported Parquet", async () => {
    expect(
      await f.query(
        `SELECT "day", "canvas_name" FROM "analytics"."canvas_names_by_day" WHERE "canvas_id" = '${canvasId}' AND "day" >= DATE '2024-06-15' ORDER BY "day"`,
      ),
    ).toEqual([
      { day: new Date('2024-06-15T00:00:00Z'), canvas_name: oldCanvasName },
      { day: new Date('2024-06-16T00:00:00Z'), canvas_name: 'Renamed Canvas' },
    ]);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const exported = (
      await duck.runAndReadAll(
        `SELECT "name" FROM read_parquet('${f.out}/canvases_history/**/*.parquet') WHERE "canvas_id" = '${canvasId}' ORDER BY "_valid_from"`,
      )
    ).getRowObjectsJS();
    duck.closeSync();
    expect(exported.map((r) => r['name'])).toEqual([oldCanvasName, 'Renamed Canvas']);
  });

  it("names each day's campaign, variant, step and segment rows with the names valid that day", async () => {
    const byDay = (sql: string) => f.query(`${sql} AND "day" >= DATE '2024-06-15' ORDER BY "day"`);
    const days = [new Date('2024-06-15T00:00:00Z'), new Date('2024-06-16T00:00:00Z')];
    expect(
      await byDay(
        `SELECT "day", "campaign_name" AS "name" FROM "analytics"."campaign_names_by_day" WHERE "campaign_id" = '${campaignId}'`,
      ),
    ).toEqual([
      { day: days[0], name: oldCampaignName },
      { day: days[1], name: 'Renamed campaign' },
    ]);
    const variant = await byDay(
      `SELECT "day", "variant_name" AS "name" FROM "analytics"."canvas_variant_names_by_day" WHERE "canvas_id" = '${canvasId}' AND "variant_id" = '${variantId}'`,
    );
    expect(variant.map((r) => r['day'])).toEqual(days);
    expect(variant[0]!['name']).not.toBe('Renamed variant');
    expect(variant[0]!['name']).toEqual(expect.any(String));
    expect(variant[1]!['name']).toBe('Renamed variant');
    // The Canvas's steps were not renamed: each day's step name is the step's name.
    const steps = await byDay(
      `SELECT n."day", n."step_name" AS "name", s."name" AS "stored" FROM "analytics"."canvas_step_names_by_day" n JOIN "canvas_steps" s USING ("canvas_id", "step_id") WHERE n."canvas_id" = '${canvasId}'`,
    );
    expect(steps.length).toBeGreaterThan(0);
    for (const r of steps) expect(r['name']).toBe(r['stored']);
    expect(
      await byDay(
        `SELECT "day", "segment_name" AS "name" FROM "analytics"."segment_names_by_day" WHERE "segment_id" = '${segmentId}'`,
      ),
    ).toEqual([
      { day: days[0], name: oldSegmentName },
      { day: days[1], name: 'Renamed segment' },
    ]);
    // Each view has one row per object and day of its series, and a name for every object the details read.
    for (const [view, series, key] of [
      [
        'campaign_names_by_day',
        `SELECT DISTINCT "campaign_id", CAST("time" AS DATE) FROM "campaign_series"`,
        'campaign_name',
      ],
      [
        'canvas_variant_names_by_day',
        `SELECT DISTINCT "canvas_id", "variant_id", "day" FROM "canvas_variant_summary"`,
        'variant_name',
      ],
      [
        'canvas_step_names_by_day',
        `SELECT DISTINCT "canvas_id", "step_id", "day" FROM "canvas_step_summary"`,
        'step_name',
      ],
      [
        'segment_names_by_day',
        `SELECT DISTINCT "segment_id", CAST("time" AS DATE) FROM "segment_size"`,
        'segment_name',
      ],
    ] as const) {
      const [counts] = await f.query(
        `SELECT (SELECT count(*) FROM "analytics"."${view}")::INTEGER AS "rows", (SELECT count(*) FROM (${series}))::INTEGER AS "days", (SELECT count("${key}") FROM "analytics"."${view}")::INTEGER AS "named"`,
      );
      expect(counts!['rows'], view).toBe(counts!['days']);
      expect(counts!['rows'], view).toBeGreaterThan(0);
      expect(counts!['named'], view).toBeGreaterThan(0);
    }
  });
});
