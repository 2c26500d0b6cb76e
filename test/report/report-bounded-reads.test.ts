// The report's charts of the last days read the last days: the segment and events charts, whose views compute windows
// over every day, read their macros from a constant first day, so the rows their scans return are those days, not the
// history. On a workspace that is not the demo (seed 11, UUID ids) with eight months of sizes and counts; the test
// counts the rows the table scans return (DuckDB's profile), not the time. A database whose views an older engage-etl
// made lacks those macros: the report names them and what creates them.
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { CHARTS, setReportLastDays } from '../../src/report/report-charts.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';

const PIPELINE = `
name: bounded
start_date: 2024-06-01
lookback_days: 1
streams:
  segment_size: { segments: all }
  event_counts: { events: all, unit: day }
`;

const SEGMENTS = 3;
const EVENTS = 3;

interface PlanNode {
  operator_name?: string;
  operator_cardinality?: number;
  extra_info?: { Table?: string };
  children?: PlanNode[];
}

/** Rows the scans of `table` returned while `sql` ran. */
async function rowsScanned(wh: Warehouse, sql: string, table: string): Promise<number> {
  const [row] = await wh.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
  const sum = (n: PlanNode): number =>
    (n.operator_name?.includes('SCAN') && n.extra_info?.Table?.endsWith(`.${table}`)
      ? (n.operator_cardinality ?? 0)
      : 0) + (n.children ?? []).reduce((s, c) => s + sum(c), 0);
  return sum(JSON.parse(String(row?.['explain_value'])) as PlanNode);
}

describe('a report over eight months of segment sizes and event counts', () => {
  let f: PipelineFixture;
  let wh: Warehouse;

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: '2025-02-10T12:00:00Z',
      pipeline: PIPELINE,
      emulator: {
        seed: 11,
        size: { apps: 1, products: 1, segments: SEGMENTS, events: EVENTS, canvases: 1, campaigns: 1 },
        idStyle: 'uuid',
        rateLimits: false,
      },
    });
    expect((await f.run()).status).toBe('succeeded');
    wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    await setReportLastDays(wh);
  });
  afterAll(async () => {
    await wh?.close();
    await f?.close();
  });

  const chartSql = (id: string) => CHARTS.find((c) => c.id === id)!.sql;

  it('draws the segment chart from the sizes of its last 90 days only', async () => {
    const [all] = await wh.query(`SELECT count(*) AS n FROM segment_size`);
    const total = Number(all?.['n']);
    expect(total).toBeGreaterThan(200 * SEGMENTS);
    const scanned = await rowsScanned(wh, chartSql('segments'), 'segment_size');
    expect(scanned).toBeGreaterThan(0);
    // Two reads (the largest on the last day, the last 90 days), each from its first day to the day in progress.
    expect(scanned).toBeLessThanOrEqual((2 + 90 + 2) * SEGMENTS);
    expect((await wh.query(chartSql('segments'))).length).toBe(90 * SEGMENTS);
  });

  it('draws the events chart from the counts of its last two weeks only', async () => {
    const [all] = await wh.query(`SELECT count(*) AS n FROM event_counts`);
    expect(Number(all?.['n'])).toBeGreaterThan(200 * EVENTS);
    const scanned = await rowsScanned(wh, chartSql('events'), 'event_counts');
    expect(scanned).toBeGreaterThan(0);
    // From 14 days before its last day (the day before the run's) to the day in progress.
    expect(scanned).toBeLessThanOrEqual((14 + 2) * EVENTS);
  });

  it("reads from a segment macro's first day the rows of the view, with previous_size from that day on", async () => {
    const since = `CAST(getvariable('report_last_day_segment_size_daily') AS DATE) - 30`;
    const cols = `"day", "segment_id", "segment_name", "size", "previous_size", "growth", "growth_rate", "complete"`;
    const fromMacro = await wh.query(
      `SELECT ${cols} FROM analytics.segment_size_per_day("since" := ${since}) WHERE "day" > ${since} ORDER BY ALL`,
    );
    const fromView = await wh.query(
      `SELECT ${cols} FROM analytics.segment_size_daily WHERE "day" > ${since} ORDER BY ALL`,
    );
    expect(fromMacro.length).toBeGreaterThanOrEqual(30 * SEGMENTS);
    expect(fromMacro).toEqual(fromView);
    // The first day has no day before it in the macro's rows.
    const [first] = await wh.query(
      `SELECT count("previous_size") AS n FROM analytics.segment_size_per_day("since" := ${since}) WHERE "day" = ${since}`,
    );
    expect(Number(first?.['n'])).toBe(0);
  });

  it('names the macro a database whose views an older engage-etl made lacks, and what creates it', async () => {
    const older = join(f.dir, 'older-views.duckdb');
    await copyFile(f.db, older);
    const old = await Warehouse.open(older, WAREHOUSE_TABLES, {});
    try {
      await old.query('DROP MACRO TABLE analytics.segment_size_per_day');
      await expect(setReportLastDays(old)).rejects.toThrow(
        /older engage-etl: it lacks analytics\.segment_size_per_day, .*The next `engage-etl run`/,
      );
    } finally {
      await old.close();
    }
  });
});
