import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { RunLog } from '../../src/load/run-log.js';
import { SeriesStateStore } from '../../src/load/series-state-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { TABLE_SPECS, allColumnNames, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { revenueRow, tempDir, utc } from './warehouse-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let wh: Warehouse;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  wh = await Warehouse.open(join(dir, 'nested', 'warehouse.duckdb'), WAREHOUSE_TABLES);
});

afterEach(async () => {
  await wh.close();
  await cleanup();
});

const dirty = async (): Promise<string[]> =>
  (await wh.query(`SELECT "table_name" || ':' || "partition" AS p FROM "_etl_dirty_partitions" ORDER BY 1`)).map(
    (r) => r.p as string,
  );

const revenueRows = async (): Promise<Record<string, unknown>[]> =>
  wh.query(`SELECT "time", "revenue", "_run_id" FROM "revenue" ORDER BY "time"`);

describe('Warehouse.open', () => {
  it('creates the parent folder and every registry table with exactly the registry columns and types', async () => {
    const rows = await wh.query(
      `SELECT "table_name", "column_name", "data_type" FROM information_schema.columns WHERE "table_schema" = 'main' ORDER BY "table_name", "ordinal_position"`,
    );
    for (const spec of TABLE_SPECS) {
      const cols = rows.filter((r) => r.table_name === spec.name);
      expect(cols.map((r) => r.column_name)).toEqual(allColumnNames(spec));
      for (const col of spec.columns) expect(cols.find((r) => r.column_name === col.name)?.data_type).toBe(col.type);
    }
  });

  it('opens an existing database a second time without changing it (the DDL is idempotent)', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 1)] }],
      state: [],
    });
    await wh.close();
    wh = await Warehouse.open(join(dir, 'nested', 'warehouse.duckdb'), WAREHOUSE_TABLES);
    expect(await revenueRows()).toHaveLength(1);
  });
});

describe('Warehouse.commit', () => {
  it('inserts new keys, replaces re-fetched keys whose data changed, and leaves identical rows with their old _run_id', async () => {
    const first = await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 10), revenueRow('2024-03-02', 20)] }],
      state: [],
    });
    expect(first.tables.revenue).toEqual({ inserted: 2, updated: 0, unchanged: 0, deleted: 0 });

    const second = await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [
        {
          table: 'revenue',
          rows: [revenueRow('2024-03-01', 10), revenueRow('2024-03-02', 25), revenueRow('2024-03-03', 30)],
        },
      ],
      state: [],
    });
    expect(second.tables.revenue).toEqual({ inserted: 1, updated: 1, unchanged: 1, deleted: 0 });
    expect(second.rowsChanged).toBe(2);
    expect(await revenueRows()).toEqual([
      { time: utc('2024-03-01'), revenue: 10, _run_id: 'r1' },
      { time: utc('2024-03-02'), revenue: 25, _run_id: 'r2' },
      { time: utc('2024-03-03'), revenue: 30, _run_id: 'r2' },
    ]);
    const loaded = await wh.query(`SELECT "_loaded_at" FROM "revenue" ORDER BY "time"`);
    expect(loaded.map((r) => r._loaded_at)).toEqual([utc('2024-03-05'), utc('2024-03-06'), utc('2024-03-06')]);
  });

  it('keeps the last of duplicate keys inside one batch, across upsert entries too', async () => {
    const result = await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [
        { table: 'revenue', rows: [revenueRow('2024-03-01', 1), revenueRow('2024-03-01', 2)] },
        { table: 'revenue', rows: [revenueRow('2024-03-01', 3)] },
      ],
      state: [],
    });
    expect(result.tables.revenue).toEqual({ inserted: 1, updated: 0, unchanged: 0, deleted: 0 });
    expect(await revenueRows()).toEqual([{ time: utc('2024-03-01'), revenue: 3, _run_id: 'r1' }]);
  });

  it('records dirty month partitions only for rows that changed', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-04-05'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-31', 1), revenueRow('2024-04-01', 2)] }],
      state: [],
    });
    expect(await dirty()).toEqual(['revenue:2024-03', 'revenue:2024-04']);
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);

    await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-04-06'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-31', 1), revenueRow('2024-04-01', 5)] }],
      state: [],
    });
    expect(await dirty()).toEqual(['revenue:2024-04']);
  });

  it('deletes the stored rows of a replace scope that the batch no longer holds, and only those', async () => {
    const step = (canvas: string, id: string, name: string): Record<string, unknown> => ({
      canvas_id: canvas,
      step_id: id,
      name,
      type: 'message',
      next_step_ids: [],
      next_paths: [{ name: null, next_step_id: 'x' }],
      channels: ['email'],
      messages: { m1: { channel: 'email' } },
    });
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [
        {
          table: 'canvas_steps',
          rows: [step('cv_1', 's1', 'a'), step('cv_1', 's2', 'b'), step('cv_1', 's3', 'c'), step('cv_2', 's1', 'z')],
        },
      ],
      state: [],
    });
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);

    const result = await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [{ table: 'canvas_steps', rows: [step('cv_1', 's1', 'a'), step('cv_1', 's2', 'b')] }],
      replaces: [{ table: 'canvas_steps', columns: ['canvas_id'], values: [['cv_1']] }],
      state: [],
    });
    expect(result.tables.canvas_steps).toEqual({ inserted: 0, updated: 0, unchanged: 2, deleted: 1 });
    // The deleted step's version is closed (counted as updated); the unchanged steps open none.
    expect(result.tables.canvas_steps_history).toEqual({ inserted: 0, updated: 1, unchanged: 0, deleted: 0 });
    const left = await wh.query(
      `SELECT "canvas_id", "step_id", "_run_id", "next_paths", "channels" FROM "canvas_steps" ORDER BY 1, 2`,
    );
    expect(left).toEqual([
      {
        canvas_id: 'cv_1',
        step_id: 's1',
        _run_id: 'r1',
        next_paths: '[{"name":null,"next_step_id":"x"}]',
        channels: ['email'],
      },
      {
        canvas_id: 'cv_1',
        step_id: 's2',
        _run_id: 'r1',
        next_paths: '[{"name":null,"next_step_id":"x"}]',
        channels: ['email'],
      },
      {
        canvas_id: 'cv_2',
        step_id: 's1',
        _run_id: 'r1',
        next_paths: '[{"name":null,"next_step_id":"x"}]',
        channels: ['email'],
      },
    ]);
    expect(await dirty()).toEqual(['canvas_steps:', 'canvas_steps_history:']);
  });

  it("replaces a (canvas, day) scope of a month-partitioned table and marks the deleted rows' month dirty", async () => {
    const v = (day: string, variant: string, entries: number): Record<string, unknown> => ({
      canvas_id: 'cv_1',
      day: utc(day),
      variant_id: variant,
      name: variant,
      entries,
      conversions: 0,
      revenue: 0,
    });
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [
        {
          table: 'canvas_variant_summary',
          rows: [v('2024-03-01', 'a', 1), v('2024-03-01', 'b', 2), v('2024-03-02', 'b', 3)],
        },
      ],
      state: [],
    });
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);
    const result = await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [],
      replaces: [
        { table: 'canvas_variant_summary', columns: ['canvas_id', 'day'], values: [['cv_1', utc('2024-03-01')]] },
      ],
      state: [],
    });
    expect(result.tables.canvas_variant_summary).toEqual({ inserted: 0, updated: 0, unchanged: 0, deleted: 2 });
    expect(await wh.query(`SELECT "day", "variant_id" FROM "canvas_variant_summary"`)).toEqual([
      { day: utc('2024-03-02'), variant_id: 'b' },
    ]);
    expect(await dirty()).toEqual(['canvas_variant_summary:2024-03']);
  });

  it('keeps first_seen_at of a custom event seen again and updates last_seen_at', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [
        {
          table: 'custom_events',
          rows: [{ name: 'ev', first_seen_at: utc('2024-03-05'), last_seen_at: utc('2024-03-05') }],
        },
      ],
      state: [],
    });
    const same = await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-04-06'),
      upserts: [
        {
          table: 'custom_events',
          rows: [{ name: 'ev', first_seen_at: utc('2024-04-06'), last_seen_at: utc('2024-03-05') }],
        },
      ],
      state: [],
    });
    expect(same.tables.custom_events).toEqual({ inserted: 0, updated: 0, unchanged: 1, deleted: 0 });
    const seen = await wh.commit({
      runId: 'r3',
      loadedAt: utc('2024-04-07'),
      upserts: [
        {
          table: 'custom_events',
          rows: [{ name: 'ev', first_seen_at: utc('2024-04-07'), last_seen_at: utc('2024-04-07') }],
        },
      ],
      state: [],
    });
    expect(seen.tables.custom_events).toEqual({ inserted: 0, updated: 1, unchanged: 0, deleted: 0 });
    expect(
      await wh.query(`SELECT "name", "first_seen_at", "last_seen_at", "_run_id", "_month" FROM "custom_events"`),
    ).toEqual([
      {
        name: 'ev',
        first_seen_at: utc('2024-03-05'),
        last_seen_at: utc('2024-04-07'),
        _run_id: 'r3',
        _month: '2024-03',
      },
    ]);
  });

  it('rolls everything back when a value is bad: earlier tables, state and dirty partitions stay as they were', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 10)] }],
      state: [{ stream: 'revenue', seriesKey: '*|*', unit: 'day', watermark: utc('2024-03-02'), rowsLoaded: 1 }],
    });
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);
    const commit = wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [
        { table: 'revenue', rows: [revenueRow('2024-03-01', 11), revenueRow('2024-03-02', 12)] },
        {
          table: 'sessions',
          rows: [{ app_id: '*', segment_id: '*', unit: 'day', time: utc('2024-03-01'), sessions: 'many' }],
        },
      ],
      state: [{ stream: 'revenue', seriesKey: '*|*', unit: 'day', watermark: utc('2024-03-03'), rowsLoaded: 2 }],
    });
    await expect(commit).rejects.toThrow(/sessions row 0 column "sessions": expected an integer .*"many"/);
    expect(await revenueRows()).toEqual([{ time: utc('2024-03-01'), revenue: 10, _run_id: 'r1' }]);
    expect(await wh.query(`SELECT count(*) AS n FROM "sessions"`)).toEqual([{ n: 0 }]);
    expect(await dirty()).toEqual([]);
    const state = await new SeriesStateStore(wh).states();
    expect(state.map((s) => [s.watermark, s.rowsLoaded, s.lastRunId])).toEqual([[utc('2024-03-02'), 1, 'r1']]);
  });

  it('refuses a row with an unknown column or a missing key, naming table, row and column', async () => {
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'revenue', rows: [{ ...revenueRow('2024-03-01', 1), revnue: 2 }] }],
        state: [],
      }),
    ).rejects.toThrow(/revenue row 0: unknown column "revnue"/);
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'revenue', rows: [{ ...revenueRow('2024-03-01', 1), app_id: null }] }],
        state: [],
      }),
    ).rejects.toThrow(/revenue row 0 column "app_id": a key column must have a value/);
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 1, '*', '*', 'week')] }],
        state: [],
      }),
    ).rejects.toThrow(/revenue row 0 column "unit": expected one of "day", "hour", got "week"/);
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'canvas_summary', rows: [{ canvas_id: 'cv', day: utc('2024-03-01T10:00:00') }] }],
        state: [],
      }),
    ).rejects.toThrow(/canvas_summary row 0 column "day": expected a Date at UTC midnight/);
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'revenues' as never, rows: [] }],
        state: [],
      }),
    ).rejects.toThrow(/names unknown table "revenues"; use one of: purchase_quantity, revenue/);
  });
});

describe('Warehouse.commit of values at the edges of their staging', () => {
  it('stores counts, instants and days exactly: 2^53 − 1 as a number, beyond it as a bigint, milliseconds, days before 1970', async () => {
    const big = 2n ** 62n + 1n;
    const rows = [
      {
        app_id: '*',
        segment_id: '*',
        unit: 'hour',
        time: new Date(Date.UTC(2024, 2, 1, 13, 0, 0, 123)),
        sessions: Number.MAX_SAFE_INTEGER,
      },
      {
        app_id: '*',
        segment_id: '*',
        unit: 'hour',
        time: new Date(Date.UTC(1969, 11, 31, 23)),
        sessions: -Number.MAX_SAFE_INTEGER,
      },
    ];
    await wh.commit({ runId: 'r1', loadedAt: utc('2024-03-05'), upserts: [{ table: 'sessions', rows }], state: [] });
    expect(await wh.query(`SELECT "time", "sessions"::VARCHAR AS s FROM "sessions" ORDER BY "time"`)).toEqual([
      { time: new Date(Date.UTC(1969, 11, 31, 23)), s: String(-Number.MAX_SAFE_INTEGER) },
      { time: new Date(Date.UTC(2024, 2, 1, 13, 0, 0, 123)), s: String(Number.MAX_SAFE_INTEGER) },
    ]);
    await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [
        {
          table: 'sessions',
          rows: [
            { ...rows[0], sessions: big },
            { ...rows[1], sessions: 7 },
          ],
        },
      ],
      state: [],
    });
    expect((await wh.query(`SELECT "sessions"::VARCHAR AS s FROM "sessions" ORDER BY "time"`)).map((r) => r.s)).toEqual(
      ['7', String(big)],
    );
    const day = { canvas_id: 'cv', day: new Date(Date.UTC(1969, 6, 20)), entries: 1 };
    await wh.commit({
      runId: 'r3',
      loadedAt: utc('2024-03-06'),
      upserts: [{ table: 'canvas_summary', rows: [day] }],
      state: [],
    });
    expect(await wh.query(`SELECT "day"::VARCHAR AS d, "entries" FROM "canvas_summary"`)).toEqual([
      { d: '1969-07-20', entries: 1 },
    ]);
  });

  it('stages tables of different widths and kinds in one batch, packed into shared chunks: every value back, NULLs where given', async () => {
    // segments (strings, a boolean, instants, two lists), sessions (a count beyond 2^53 late in the part, which restages
    // the batch) and canvas_summary (days, counts, money) in one commit: their rows share DataChunks and slots.
    const segments = Array.from({ length: 2_100 }, (_, i) => ({
      segment_id: `seg-${i}`,
      name: i % 5 === 0 ? null : `Segment ${i}`,
      analytics_tracking_enabled: i % 3 === 0 ? null : i % 2 === 0,
      created_at: new Date(Date.UTC(2023, 0, 1) + i * 60_000),
      tags: i % 4 === 0 ? null : [`t${i}`, 'all'],
      teams: i % 7 === 0 ? [] : null,
    }));
    const big = 2n ** 60n + 3n;
    const sessions = Array.from({ length: 1_000 }, (_, i) => ({
      app_id: '*',
      segment_id: '*',
      unit: 'hour',
      time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000),
      sessions: i === 997 ? big : i % 9 === 0 ? null : i,
    }));
    const summary = Array.from({ length: 3_000 }, (_, i) => ({
      canvas_id: `cv-${i % 30}`,
      day: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 30) * 86_400_000),
      entries: i,
      revenue: i % 11 === 0 ? null : i + 0.25,
    }));
    const result = await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-06-01'),
      state: [],
      upserts: [
        { table: 'segments', rows: segments.slice(0, 1_000) },
        { table: 'sessions', rows: sessions },
        { table: 'canvas_summary', rows: summary },
        { table: 'segments', rows: segments.slice(1_000) },
      ],
    });
    expect(result.tables).toEqual({
      segments: { inserted: 2_100, updated: 0, unchanged: 0, deleted: 0 },
      // A version opened per new segment, none closed.
      segments_history: { inserted: 2_100, updated: 0, unchanged: 0, deleted: 0 },
      sessions: { inserted: 1_000, updated: 0, unchanged: 0, deleted: 0 },
      canvas_summary: { inserted: 3_000, updated: 0, unchanged: 0, deleted: 0 },
    });
    const storedSegments = await wh.query(
      `SELECT "segment_id", "name", "analytics_tracking_enabled", "created_at", "tags", "teams", "description" FROM "segments" ORDER BY "created_at"`,
    );
    expect(storedSegments).toEqual(segments.map((s) => ({ ...s, description: null })));
    const storedSessions = await wh.query(`SELECT "time", "sessions"::VARCHAR AS s FROM "sessions" ORDER BY "time"`);
    expect(storedSessions).toEqual(
      sessions.map((s) => ({ time: s.time, s: s.sessions === null ? null : String(s.sessions) })),
    );
    const storedSummary = await wh.query(
      `SELECT "canvas_id", "day", "entries", "revenue"::VARCHAR AS revenue, "conversions" FROM "canvas_summary" ORDER BY "day", "entries"`,
    );
    expect(storedSummary).toEqual(
      summary.map((s) => ({ ...s, revenue: s.revenue === null ? null : s.revenue.toFixed(2), conversions: null })),
    );
  });

  it('stores awkward text exactly through the staged files: quotes, commas, line breaks, empty strings apart from NULL, unicode, JSON and lists', async () => {
    const texts = [
      '',
      ' ',
      '"',
      '""',
      'a,b',
      'line\nbreak',
      'cr\r\nlf',
      '\\N',
      'NULL',
      'tab\there',
      'émoji 🎉 中文',
      '\u0000nul',
      "it's",
      '"quoted", and, commas\n',
    ];
    const lone = 'half \ud83d surrogate';
    const campaigns = [...texts, lone].map((name, i) => ({
      campaign_id: `c-${i}`,
      name,
      description: i % 2 === 0 ? null : name,
      tags: i % 3 === 0 ? null : [name, 'x,y', '"q"', ''],
      channels: i % 4 === 0 ? [] : ['email'],
      conversion_behaviors: i % 5 === 0 ? null : [{ type: name, window: i }],
    }));
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-06-01'),
      state: [],
      upserts: [{ table: 'campaigns', rows: campaigns }],
    });
    const stored = await wh.query(
      `SELECT "name", "description", "tags", "channels", CAST("conversion_behaviors" AS VARCHAR) AS behaviors FROM "campaigns" ORDER BY CAST(substr("campaign_id", 3) AS INTEGER)`,
    );
    const well = (t: string) => (t === lone ? 'half \ufffd surrogate' : t);
    expect(stored).toEqual(
      campaigns.map((c) => ({
        name: well(c.name),
        description: c.description === null ? null : well(c.description),
        tags: c.tags === null ? null : c.tags.map(well),
        channels: c.channels,
        behaviors:
          c.conversion_behaviors === null
            ? null
            : JSON.stringify(c.conversion_behaviors.map((b) => ({ ...b, type: well(b.type) }))),
      })),
    );
  });

  it('refuses a count that is not a whole number or a bigint, and an invalid Date, naming row and column', async () => {
    const row = { app_id: '*', segment_id: '*', unit: 'day', time: utc('2024-03-01'), sessions: 1 };
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'sessions', rows: [row, { ...row, time: utc('2024-03-02'), sessions: 1.5 }] }],
        state: [],
      }),
    ).rejects.toThrow(/sessions row 1 column "sessions": expected an integer/);
    await expect(
      wh.commit({
        runId: 'r1',
        loadedAt: utc('2024-03-05'),
        upserts: [{ table: 'sessions', rows: [{ ...row, time: new Date(NaN) }] }],
        state: [],
      }),
    ).rejects.toThrow(/sessions row 0 column "time": expected a valid Date/);
    expect(await wh.query(`SELECT count(*) AS n FROM "sessions"`)).toEqual([{ n: 0 }]);
  });
});

describe('Warehouse.commit of holes', () => {
  const hole = (unitStart: string, status: 'open' | 'confirmed_absent' | 'filled', attempts = 1) => ({
    stream: 'revenue',
    seriesKey: '*|*',
    unit: 'day',
    unitStart: utc(unitStart),
    status,
    attempts,
    reason: `${status} ${attempts}`,
  });
  const holes = async () =>
    (await new SeriesStateStore(wh).holes()).map((h) => [
      h.unitStart.toISOString().slice(0, 10),
      h.status,
      h.attempts,
      h.firstRunId,
      h.lastRunId,
    ]);

  it("applies a batch's hole changes as if one at a time: the last change of a unit wins, a stored hole keeps its first run", async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [],
      state: [],
      holes: [hole('2024-03-01', 'open'), hole('2024-03-02', 'open'), hole('2024-03-03', 'open')],
    });
    await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [],
      state: [],
      holes: [
        hole('2024-03-01', 'open', 2),
        hole('2024-03-01', 'confirmed_absent', 3), // stays, first run r1
        hole('2024-03-02', 'filled'),
        hole('2024-03-02', 'open', 1), // filled then missing again: a new hole of r2
        hole('2024-03-03', 'filled'), // gone
        hole('2024-03-04', 'open'),
        hole('2024-03-04', 'open', 2), // new, twice
      ],
    });
    expect(await holes()).toEqual([
      ['2024-03-01', 'confirmed_absent', 3, 'r1', 'r2'],
      ['2024-03-02', 'open', 1, 'r2', 'r2'],
      ['2024-03-04', 'open', 2, 'r2', 'r2'],
    ]);
  });
});

describe('Warehouse.commit in bulk', () => {
  it("merges a batch of 200k rows (more than fit in one call's arguments or one DataChunk)", async () => {
    const day = Date.UTC(2024, 0, 1);
    const rows = (from: number, to: number, value: (i: number) => number): Record<string, unknown>[] =>
      Array.from({ length: to - from }, (_, k) => ({
        app_id: `app_${(from + k) % 7}`,
        product: '*',
        unit: 'hour',
        time: new Date(day + (from + k) * 3_600_000),
        revenue: value(from + k),
      }));
    const first = await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [{ table: 'revenue', rows: rows(0, 200_000, (i) => i) }],
      state: [],
    });
    expect(first.tables.revenue).toEqual({ inserted: 200_000, updated: 0, unchanged: 0, deleted: 0 });
    const second = await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-03-06'),
      upserts: [{ table: 'revenue', rows: rows(100_000, 300_000, (i) => (i < 150_000 ? -i : i)) }],
      state: [],
    });
    expect(second.tables.revenue).toEqual({ inserted: 100_000, updated: 50_000, unchanged: 50_000, deleted: 0 });
    expect(await wh.query(`SELECT "_run_id", count(*) AS n FROM "revenue" GROUP BY ALL ORDER BY 1`)).toEqual([
      { _run_id: 'r1', n: 150_000 },
      { _run_id: 'r2', n: 150_000 },
    ]);
  });
});

describe('series state and run log', () => {
  it('advances watermarks (last entry wins) and adds up rows_loaded over runs', async () => {
    const s = (watermark: string, rowsLoaded: number) => ({
      stream: 'sessions',
      seriesKey: 'app_1|*',
      unit: 'hour',
      watermark: utc(watermark),
      rowsLoaded,
    });
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [],
      state: [s('2024-03-04', 24), s('2024-03-05', 24)],
    });
    await wh.commit({ runId: 'r2', loadedAt: utc('2024-03-06'), upserts: [], state: [s('2024-03-06', 24)] });
    expect(await new SeriesStateStore(wh).states()).toEqual([
      {
        stream: 'sessions',
        seriesKey: 'app_1|*',
        unit: 'hour',
        watermark: utc('2024-03-06'),
        rowsLoaded: 72,
        lowWatermark: null,
        lastRunId: 'r2',
        updatedAt: utc('2024-03-06'),
        utcOffset: null,
      },
    ]);
  });

  it('keeps the offset a daily series was written with until a later batch names another', async () => {
    const s = (watermark: string, utcOffset?: string) => ({
      stream: 'kpis',
      seriesKey: 'unit=day|metric=dau',
      unit: 'day',
      watermark: utc(watermark),
      rowsLoaded: 1,
      ...(utcOffset ? { utcOffset } : {}),
    });
    const offset = async () => (await new SeriesStateStore(wh).states()).find((r) => r.stream === 'kpis')?.utcOffset;
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [],
      state: [s('2024-03-04', '+01:00'), s('2024-03-05', '+02:00')],
    });
    expect(await offset()).toBe('+02:00');
    await wh.commit({ runId: 'r2', loadedAt: utc('2024-03-06'), upserts: [], state: [s('2024-03-06')] });
    expect(await offset()).toBe('+02:00');
  });

  it('reports status with the last run, its outcome and staleness', async () => {
    await new RunLog(wh).begin({
      runId: 'r1',
      pipeline: 'nightly',
      startedAt: utc('2024-03-05T01:00:00'),
      until: utc('2024-03-05'),
    });
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05T01:05:00'),
      upserts: [],
      state: [{ stream: 'revenue', seriesKey: '*|*', unit: 'day', watermark: utc('2024-03-04'), rowsLoaded: 3 }],
    });
    await new RunLog(wh).finish({
      runId: 'r1',
      finishedAt: utc('2024-03-05T01:10:00'),
      status: 'succeeded',
      requests: 7,
      rowsChanged: 3,
    });
    const [row] = await new SeriesStateStore(wh).status(utc('2024-03-05T12:00:00'));
    expect(row).toMatchObject({
      stream: 'revenue',
      lastRunId: 'r1',
      lastRunStatus: 'succeeded',
      lastRunFinishedAt: utc('2024-03-05T01:10:00'),
      rowsLoaded: 3,
      stalenessMs: 24 * 3_600_000,
    });
    // At 12:00 on the 5th the 5th is still going: a watermark at its 00:00 is current.
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05T01:06:00'),
      upserts: [],
      state: [{ stream: 'revenue', seriesKey: '*|*', unit: 'day', watermark: utc('2024-03-05'), rowsLoaded: 1 }],
    });
    expect((await new SeriesStateStore(wh).status(utc('2024-03-05T12:00:00')))[0]?.stalenessMs).toBe(0);
    expect(await wh.query(`SELECT "status", "requests", "rows_changed", "pid", "until" FROM "_etl_runs"`)).toEqual([
      { status: 'succeeded', requests: 7, rows_changed: 3, pid: process.pid, until: utc('2024-03-05') },
    ]);
  });

  it('refuses to begin a run id twice and to finish a run never begun', async () => {
    await new RunLog(wh).begin({ runId: 'r1', pipeline: 'p', startedAt: utc('2024-03-05'), until: utc('2024-03-05') });
    await expect(
      new RunLog(wh).begin({ runId: 'r1', pipeline: 'p', startedAt: utc('2024-03-05'), until: utc('2024-03-05') }),
    ).rejects.toThrow(/run r1 is already in the run log/);
    await expect(
      new RunLog(wh).finish({
        runId: 'nope',
        finishedAt: utc('2024-03-05'),
        status: 'failed',
        requests: 0,
        rowsChanged: 0,
        error: 'x',
      }),
    ).rejects.toThrow(/run nope is not in the run log/);
  });

  it('resets streams for a full refresh: tables emptied, their state gone, their partitions dirty', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-04-05'),
      upserts: [
        { table: 'revenue', rows: [revenueRow('2024-03-01', 1), revenueRow('2024-04-01', 2)] },
        { table: 'canvases', rows: [{ canvas_id: 'cv_1', name: 'c', tags: ['a'] }] },
      ],
      state: [
        { stream: 'revenue', seriesKey: '*|*', unit: 'day', watermark: utc('2024-04-02'), rowsLoaded: 2 },
        { stream: 'sessions', seriesKey: '*|*', unit: 'day', watermark: utc('2024-04-02'), rowsLoaded: 0 },
      ],
    });
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);
    await new SeriesStateStore(wh).resetStreams(['revenue'], ['revenue', 'canvases']);
    expect(await wh.query(`SELECT (SELECT count(*) FROM "revenue") + (SELECT count(*) FROM "canvases") AS n`)).toEqual([
      { n: 0 },
    ]);
    expect((await new SeriesStateStore(wh).states()).map((s) => s.stream)).toEqual(['sessions']);
    expect(await dirty()).toEqual(['canvases:', 'revenue:2024-03', 'revenue:2024-04']);
  });
});

describe('Warehouse.query', () => {
  it('returns plain JS values and binds Date parameters as TIMESTAMP', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-03-05'),
      upserts: [{ table: 'revenue', rows: [revenueRow('2024-03-01', 1.5), revenueRow('2024-03-02', 2)] }],
      state: [],
    });
    const rows = await wh.query(
      `SELECT count(*) AS n, sum("revenue") AS total, max("time") AS last FROM "revenue" WHERE "time" >= $1`,
      [utc('2024-03-01')],
    );
    expect(rows).toEqual([{ n: 2, total: 3.5, last: utc('2024-03-02') }]);
    expect(await wh.query(`SELECT 9007199254740993::BIGINT AS big`)).toEqual([{ big: 9007199254740993n }]);
  });
});

describe('the loaded range of a series', () => {
  const range = async (key: string) => {
    const s = (await new SeriesStateStore(wh).states()).find((r) => r.seriesKey === key)!;
    return [s.lowWatermark, s.watermark];
  };
  const state = (key: string, low: string | undefined, high: string) => ({
    stream: 'revenue',
    seriesKey: key,
    unit: 'day',
    watermark: utc(high),
    rowsLoaded: 1,
    ...(low ? { lowWatermark: utc(low) } : {}),
  });

  it('only widens: the high watermark never moves back, the low one never forward, the lowest of a batch wins', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-05-01'),
      upserts: [],
      state: [state('a', '2024-04-01', '2024-04-30')],
    });
    await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-05-02'),
      upserts: [],
      state: [state('a', '2024-03-01', '2024-04-30'), state('a', '2024-02-01', '2024-04-30')],
    });
    expect(await range('a')).toEqual([utc('2024-02-01'), utc('2024-04-30')]);
    await wh.commit({
      runId: 'r3',
      loadedAt: utc('2024-05-03'),
      upserts: [],
      state: [state('a', '2024-04-20', '2024-04-10')],
    });
    expect(await range('a')).toEqual([utc('2024-02-01'), utc('2024-04-30')]);
  });

  it('keeps none for a series stored without one (loaded from the start_date), and none where no update gives one', async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-05-01'),
      upserts: [],
      state: [state('old', undefined, '2024-04-30')],
    });
    await wh.commit({
      runId: 'r2',
      loadedAt: utc('2024-05-02'),
      upserts: [],
      state: [state('old', '2024-04-01', '2024-05-01')],
    });
    expect(await range('old')).toEqual([null, utc('2024-05-01')]);
    await wh.commit({
      runId: 'r3',
      loadedAt: utc('2024-05-02'),
      upserts: [],
      state: [state('new', '2024-04-01', '2024-05-01')],
    });
    expect(await range('new')).toEqual([utc('2024-04-01'), utc('2024-05-01')]);
  });
});
