// What a run loads must not depend on how much it was asked for. The same workspace (UUID ids, not the
// demo) exported over three months and over the last one: the Canvas and campaign tables agree, row for row, on every
// day both cover. The plan of the longer run has other windows (more of them, aligned from another start), so a plan
// or fetch queue that lost, doubled or shifted a window would show here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableName } from '../../src/streams/table-specs.js';
import { tableSpec } from '../../src/streams/table-specs.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const NOW = '2025-11-02T06:00:00Z';
const SIZE = { apps: 2, products: 5, segments: 12, events: 20, canvases: 40, campaigns: 30 };
const LONG_START = '2025-08-01';
const SHORT_START = '2025-10-01';

const pipeline = (start: string) => `
name: overlap
start_date: ${start}
streams:
  canvas_summary:  { canvases: all, source: data_series, variant_breakdown: true, step_breakdown: true }
  canvas_details:  { canvases: all }
  campaign_series: { campaigns: all }
  campaigns:       {}
`;

/** Tables whose rows are days (compared from SHORT_START on), and tables of objects (compared whole). */
const DAILY: Array<{ table: TableName; day: string }> = [
  { table: 'canvas_summary', day: 'day' },
  { table: 'canvas_variant_summary', day: 'day' },
  { table: 'canvas_step_summary', day: 'day' },
  { table: 'canvas_step_messages', day: 'day' },
  { table: 'campaign_series', day: 'time' },
  { table: 'campaign_message_series', day: 'time' },
];
const OBJECTS: TableName[] = ['canvases', 'canvas_variants', 'canvas_steps', 'campaigns', 'campaign_messages'];

async function rowsFrom(f: PipelineFixture, table: TableName, day?: string): Promise<Record<string, unknown>[]> {
  const spec = tableSpec(table);
  const cols = spec.columns.map((c) => `"${c.name}"`).join(', ');
  const where = day ? `WHERE "${day}" >= TIMESTAMP '${SHORT_START} 00:00:00'` : '';
  return f.query(`SELECT ${cols} FROM "${table}" ${where} ORDER BY ${spec.key.map((k) => `"${k}"`).join(', ')}`);
}

describe('three months and the last month of the same workspace', () => {
  let long: PipelineFixture;
  let short: PipelineFixture;

  beforeAll(async () => {
    const emulator = { size: SIZE, idStyle: 'uuid' as const, rateLimits: false };
    long = await PipelineFixture.create({ now: NOW, pipeline: pipeline(LONG_START), emulator });
    short = await PipelineFixture.create({ now: NOW, pipeline: pipeline(SHORT_START), emulator });
    const [a, b] = [await long.run(), await short.run()];
    expect([a.status, b.status]).toEqual(['succeeded', 'succeeded']);
  }, 240_000);
  afterAll(async () => {
    await long?.close();
    await short?.close();
  });

  it.each(DAILY)('$table: the same rows on every day both cover', async ({ table, day }) => {
    const fromShort = await rowsFrom(short, table, day);
    expect(fromShort.length).toBeGreaterThan(0);
    expect(await rowsFrom(long, table, day)).toEqual(fromShort);
  });

  it('the longer run has the earlier months too', async () => {
    const [row] = await long.query(`SELECT min("day") AS first FROM "canvas_summary"`);
    expect((row!.first as Date).toISOString() < `${SHORT_START}T00:00:00.000Z`).toBe(true);
  });

  it.each(OBJECTS)('%s: the same objects and details', async (table) => {
    const fromShort = await rowsFrom(short, table);
    expect(fromShort.length).toBeGreaterThan(0);
    expect(await rowsFrom(long, table)).toEqual(fromShort);
  });
});
