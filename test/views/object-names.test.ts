// Names without the details streams: a workspace that is not the demo (seed 7, UUID ids) whose pipeline resolves
// `segments: all`, `canvases: all` and `campaigns: all` but loads neither segments, canvas_details nor campaigns. The
// views and the report's charts name every object by the name discovery's lists showed, and a chart shows the id only
// beside a name two objects share.
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { styledId } from '../../src/emulator/analytics/workspace-size.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { writeReport } from '../../src/report/write-report.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { chartLabels, currentNames } from './current-names.js';
import type { NamedKind } from './current-names.js';

const SEED = 7;
const SEGMENT = styledId(SEED, 'uuid', 'seg_1');

const PIPELINE = `
name: names
start_date: 2025-01-20
streams:
  segment_size:    { segments: all }
  sessions:        { unit: day, apps: ["*"], segments: ["*", ${SEGMENT}] }
  canvas_summary:  { canvases: all, variant_breakdown: true, step_breakdown: true }
  campaign_series: { campaigns: all }
`;

interface DataRow {
  x: string;
  series: string;
}

/** The charts that name objects, and the kind each names. */
const NAMED_CHARTS = [
  ['segments', 'segments'],
  ['canvas-variants', 'canvases'],
  ['campaign-rates', 'campaigns'],
] as const;

/** The names a chart shows, each once, in order: without the marks it adds (right scale, within noise, the channel). */
function shownNames(chart: (typeof NAMED_CHARTS)[number][0], rows: readonly DataRow[]): string[] {
  const name = (r: DataRow) =>
    chart === 'segments'
      ? r.series.replace(/ \(right scale\)$/, '')
      : chart === 'canvas-variants'
        ? r.x.replace(/ \(within noise\)$/, '')
        : r.x.replace(/ · [a-z_]+$/, '');
  return [...new Set(rows.map(name))];
}

/** The rows a chart of the report carries, by chart id. */
async function reportCharts(wh: Warehouse, path: string): Promise<Map<string, DataRow[]>> {
  await writeReport(wh, path);
  const html = await readFile(path, 'utf8');
  return new Map(
    [...html.matchAll(/<script type="application\/json" data-chart-data="([^"]+)">(.*?)<\/script>/gs)].map((m) => [
      m[1]!,
      JSON.parse(m[2]!) as DataRow[],
    ]),
  );
}

describe('a workspace whose pipeline lists segments, Canvases and campaigns but loads none of their details', () => {
  let f: PipelineFixture;
  const q = (sql: string) => f.query(sql);
  const listedNames = (kind: NamedKind) => currentNames(q, kind);

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: '2025-02-10T12:34:00Z',
      pipeline: PIPELINE,
      emulator: {
        seed: SEED,
        size: { apps: 2, products: 5, segments: 24, events: 40, canvases: 24, campaigns: 16 },
        idStyle: 'uuid',
        rateLimits: false,
      },
    });
    expect((await f.run()).status).toBe('succeeded');
  }, 300_000);
  afterAll(async () => f?.close());

  it('names each segment, Canvas and campaign in the views by the name its list showed', async () => {
    for (const table of ['segments', 'canvases', 'campaigns'])
      expect((await q(`SELECT count(*) AS n FROM "${table}"`))[0]?.n, table).toBe(0);
    const cases: [NamedKind, string, string, string][] = [
      ['segments', 'segment_size_daily', 'segment_id', 'segment_name'],
      ['segments', 'sessions_daily_by_segment', 'segment_id', 'segment_name'],
      ['canvases', 'canvas_daily', 'canvas_id', 'canvas_name'],
      ['canvases', 'canvas_variant_daily', 'canvas_id', 'canvas_name'],
      ['canvases', 'canvas_step_conversions', 'canvas_id', 'canvas_name'],
      ['campaigns', 'campaign_daily', 'campaign_id', 'campaign_name'],
      ['campaigns', 'campaign_message_daily', 'campaign_id', 'campaign_name'],
    ];
    for (const [kind, view, id, name] of cases) {
      const listed = new Map(
        (await q(`SELECT id, name FROM listed_objects WHERE listing = '${kind}'`)).map((r) => [r.id, r.name]),
      );
      const rows = await q(`SELECT DISTINCT "${id}" AS id, "${name}" AS name FROM analytics."${view}"`);
      expect(rows.length, view).toBeGreaterThan(0);
      for (const r of rows) expect([view, r.id, r.name]).toEqual([view, r.id, listed.get(r.id)]);
    }
    expect(await q(`SELECT DISTINCT segment_name FROM analytics.sessions_daily_by_segment`)).toEqual([
      { segment_name: (await listedNames('segments')).get(SEGMENT) },
    ]);
  });

  it("names them in the report's charts, and never by id", async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    let charts: Map<string, DataRow[]>;
    try {
      charts = await reportCharts(wh, join(f.dir, 'report.html'));
    } finally {
      await wh.close();
    }
    const ids = (await q(`SELECT id FROM listed_objects`)).map((r) => String(r.id));
    const shown = NAMED_CHARTS.map(([chart, kind]) => [kind, shownNames(chart, charts.get(chart)!)] as const);
    expect(shown.map(([kind, labels]) => [kind, labels.length > 1])).toEqual([
      ['segments', true],
      ['canvases', true],
      ['campaigns', true],
    ]);
    expect(shown[0]![1]).toHaveLength(10);
    for (const [kind, labels] of shown) {
      const known = new Set(chartLabels(await listedNames(kind)).values());
      for (const label of labels) expect([kind, label, known.has(label)]).toEqual([kind, label, true]);
      for (const label of labels)
        expect(
          ids.filter((id) => label.includes(id)),
          label,
        ).toEqual([]);
    }
  });

  it('sets the id beside a name two segments, Canvases or campaigns share, in the charts only', async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    let before: Map<string, DataRow[]>;
    try {
      before = await reportCharts(wh, join(f.dir, 'before.html'));
    } finally {
      await wh.close();
    }
    // Two charted objects of each kind get one name, as the lists would show it after a rename.
    const twins = new Map<NamedKind, { ids: string[]; labels: string[] }>();
    for (const [chart, kind] of NAMED_CHARTS) {
      const names = await listedNames(kind);
      const labels = shownNames(chart, before.get(chart)!).slice(0, 2);
      twins.set(kind, { labels, ids: labels.map((l) => String([...names].find(([, name]) => name === l)?.[0])) });
    }
    const copy = join(f.dir, 'duplicates.duckdb');
    await copyFile(f.db, copy);
    const dup = await Warehouse.open(copy, WAREHOUSE_TABLES);
    let after: Map<string, DataRow[]>;
    try {
      for (const [kind, { ids }] of twins) {
        const [updated] = await dup.query(
          `UPDATE listed_objects SET name = 'Welcome' WHERE split_part(listing, '+', 1) = $1 AND id IN ($2, $3)`,
          [kind, ids[0]!, ids[1]!],
        );
        expect(Number(updated?.['Count']), kind).toBeGreaterThanOrEqual(2);
      }
      after = await reportCharts(dup, join(f.dir, 'after.html'));
      // In a view the name stays the name: the id has a column of its own.
      const { ids } = twins.get('segments')!;
      const [seg] = await dup.query(
        `SELECT list(DISTINCT segment_name) AS names FROM analytics.segment_size_daily WHERE segment_id IN ($1, $2)`,
        [ids[0]!, ids[1]!],
      );
      expect(seg?.['names']).toEqual(['Welcome']);
    } finally {
      await dup.close();
    }
    for (const [chart, kind] of NAMED_CHARTS) {
      const { ids, labels } = twins.get(kind)!;
      const was = shownNames(chart, before.get(chart)!);
      const now = shownNames(chart, after.get(chart)!);
      expect(now.filter((l) => l.startsWith('Welcome')).sort(), chart).toEqual(
        ids.map((id) => `Welcome (${id})`).sort(),
      );
      // Every other object keeps its plain name, and two objects of one name stay apart: as many marks as before.
      expect(now.filter((l) => !l.startsWith('Welcome')).sort(), chart).toEqual(
        was.filter((l) => !labels.includes(l)).sort(),
      );
      expect(after.get(chart)!.length, chart).toBe(before.get(chart)!.length);
    }
  });
});
