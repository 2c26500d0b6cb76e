// Reruns: the same --until twice changes nothing (no row's _run_id, no Parquet file); a later --until only adds rows and
// corrects restated days inside the look-back; --full-refresh ends identical to a first run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { Target } from './reliability-helpers.js';
import {
  SecretScan,
  fileStamps,
  makeTarget,
  parquetChecksums,
  removeDir,
  runIds,
  runInProcess,
  startEmulator,
  tableChecksums,
  tempDir,
} from './reliability-helpers.js';

const EARLIER_UNTIL = '2025-06-01T00:00:00Z';
/** Inside the 3-day look-back of a run until 2025-06-01. */
const RESTATED_DAY = '2025-05-30';

describe('reruns', () => {
  let dir: string;
  let em: Emulator;
  let first: Target;
  const secrets = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir();
    em = await startEmulator();
    first = await makeTarget(dir, 'first');
    secrets.target(first);
    secrets.text(JSON.stringify(await runInProcess(em, first)));
  });

  afterAll(async () => {
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  it('with the same --until changes nothing: no row gets a new _run_id and no Parquet file is rewritten', async () => {
    const ids = await runIds(first.db);
    const stamps = await fileStamps(first.out);
    const tables = await tableChecksums(first.db);

    const again = await runInProcess(em, first);
    secrets.text(JSON.stringify(again));

    expect(again.tables.map((t) => t.inserted + t.updated + t.deleted)).toEqual(again.tables.map(() => 0));
    expect(again.parquet).toEqual({ filesWritten: 0, filesRemoved: 0, rowsWritten: 0 });
    expect(await runIds(first.db)).toEqual(ids);
    expect(await fileStamps(first.out)).toEqual(stamps);
    expect(await tableChecksums(first.db)).toEqual(tables);
    expect(ids.size).toBeGreaterThan(4000);
  });

  it('with a later --until only adds rows and corrects the restated day, ending equal to one run up to that --until', async () => {
    const t = await makeTarget(dir, 'later');
    secrets.target(t);
    // A run of its own emulator: the restatement below must not reach the other tests' emulator.
    const own = await startEmulator();
    try {
      await runInProcess(own, t, { until: EARLIER_UNTIL });
      const before = await runIds(t.db);
      const restatedBefore = await restatedRows(t.db);
      own.state.analytics.restate({ series: 'purchases', day: RESTATED_DAY, factor: 2 });

      const later = await runInProcess(own, t);
      secrets.text(JSON.stringify(later));
      const after = await runIds(t.db);

      // Nothing disappeared.
      for (const key of before.keys()) expect(after.has(key), key).toBe(true);
      // Only rows of the restated day or after the earlier --until's look-back (or snapshots re-read as of the new
      // --until) got the new run's id.
      const rewritten = [...before].filter(([key, run]) => after.get(key) !== run).map(([key]) => key);
      const seriesTables =
        /^(purchase_quantity|revenue|sessions|segment_size|canvas_summary|canvas_variant_summary|canvas_step_summary|canvas_step_messages)\//;
      const rewrittenSeries = rewritten.filter((k) => seriesTables.test(k));
      expect(rewrittenSeries.length).toBeGreaterThan(0);
      for (const key of rewrittenSeries)
        expect(key, 'a series row outside the look-back was rewritten').toMatch(/2025-05-(29|30|31)/);
      // The restated day was corrected, doubled.
      const restatedAfter = await restatedRows(t.db);
      expect(restatedAfter.length).toBe(restatedBefore.length);
      restatedAfter.forEach((row, i) => expect(row.value).toBeCloseTo(2 * restatedBefore[i]!.value, 6));

      // first_seen_at is the --until of the run that first saw an event name: history, not data, so it is compared apart.
      const clean = await makeTarget(dir, 'later-clean');
      await runInProcess(own, clean);
      const history = ['custom_events.first_seen_at', 'listed_objects.first_seen_at'];
      expect(await tableChecksums(t.db, history)).toEqual(await tableChecksums(clean.db, history));
      expect(await parquetChecksums(t.out, history)).toEqual(await parquetChecksums(clean.out, history));
      const wh = await Warehouse.open(t.db, WAREHOUSE_TABLES, { readOnly: true });
      try {
        const seen = await wh.query(`SELECT DISTINCT CAST(first_seen_at AS VARCHAR) AS s FROM custom_events`);
        expect(seen).toEqual([{ s: '2025-06-01 00:00:00' }]);
      } finally {
        await wh.close();
      }
    } finally {
      await own.close();
    }
  });

  it('with --full-refresh ends identical to a first run, in DuckDB and in Parquet, even after a restatement beyond the look-back', async () => {
    // A correction two months back: an incremental run cannot see it, a full refresh must.
    em.state.analytics.restate({ series: 'purchases', day: '2025-04-10', factor: 3 });
    const fresh = await makeTarget(dir, 'fresh');
    await runInProcess(em, fresh);
    const expected = { tables: await tableChecksums(fresh.db), parquet: await parquetChecksums(fresh.out) };

    await runInProcess(em, first);
    expect((await tableChecksums(first.db))['revenue']).not.toBe(expected.tables['revenue']);

    const refreshed = await runInProcess(em, first, { fullRefresh: true });
    secrets.text(JSON.stringify(refreshed));
    expect(await tableChecksums(first.db)).toEqual(expected.tables);
    expect(await parquetChecksums(first.out)).toEqual(expected.parquet);
    expect((await runIds(first.db)).size).toBe((await runIds(fresh.db)).size);
  });
});

/** revenue rows of the restated day, in a fixed order. */
async function restatedRows(db: string): Promise<{ key: string; value: number }[]> {
  const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true });
  try {
    const rows = await wh.query(
      `SELECT app_id || '|' || product AS key, revenue AS value FROM revenue WHERE CAST("time" AS DATE) = DATE '${RESTATED_DAY}' AND unit = 'day' ORDER BY 1`,
    );
    return rows.map((r) => ({ key: String(r['key']), value: Number(r['value']) }));
  } finally {
    await wh.close();
  }
}
