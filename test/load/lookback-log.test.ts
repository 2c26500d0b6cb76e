// `_etl_lookback` over 40 nightly runs, in a real DuckDB file: each run's record trims it to what the auto look-back's
// rule and `status` read — the last 14 days, the last probe, and the run that began the current look-back with the one
// before it — and what they read back is the same as from the untrimmed log.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOOKBACK_LOG_DAYS, latestLookbacks, lookbackEvidence, recordLookbacks } from '../../src/load/audit-store.js';
import type { LookbackRow } from '../../src/load/audit-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { tempDir } from './warehouse-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

const NIGHTS = 40;
const FIRST = Date.parse('2025-01-01T04:00:00Z');
const until = (night: number) => new Date(FIRST + night * 86_400_000);

/**
 * Night `n`'s look-backs: `kpis` (auto) probes on nights 3, 10 and 17, re-reads 2 days before night 20 and 5 from
 * then on; `sessions` is fixed at 3 throughout.
 */
function rows(n: number): LookbackRow[] {
  const probe = n === 3 || n === 10 || n === 17;
  return [
    { stream: 'kpis', mode: 'auto', days: probe ? 28 : n < 20 ? 2 : 5, probe, reason: probe ? 'probe' : 'seen' },
    { stream: 'sessions', mode: 'fixed', days: 3, probe: false, reason: 'lookback_days in the pipeline file' },
  ];
}

describe('the look-back log', () => {
  it('keeps the last 14 days of each stream, its last probe and the start of its current look-back, and reads back the same', async () => {
    const trimmed = await Warehouse.open(join(dir, 'trimmed.duckdb'), WAREHOUSE_TABLES);
    const full = await Warehouse.open(join(dir, 'full.duckdb'), WAREHOUSE_TABLES);
    try {
      for (let n = 0; n < NIGHTS; n++) {
        await recordLookbacks(trimmed, `run-${n}`, until(n), rows(n));
        for (const r of rows(n)) {
          await full.query(`INSERT INTO "_etl_lookback" VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
            `run-${n}`,
            r.stream,
            until(n),
            r.mode,
            r.days,
            r.probe,
            r.reason,
          ]);
        }
      }
      const kept = await trimmed.query(`SELECT "stream", "run_id" FROM "_etl_lookback" ORDER BY "stream", "until"`);
      const nightsOf = (stream: string) =>
        kept.filter((r) => r['stream'] === stream).map((r) => Number(String(r['run_id']).slice(4)));
      const window = Array.from({ length: LOOKBACK_LOG_DAYS + 1 }, (_, i) => NIGHTS - 1 - LOOKBACK_LOG_DAYS + i);
      // kpis: its last probe (17), the night before its current look-back (19) and the night that began it (20).
      expect(nightsOf('kpis')).toEqual([17, 19, 20, ...window]);
      // sessions: one look-back since its first night.
      expect(nightsOf('sessions')).toEqual([0, ...window]);
      expect(Number((await full.query(`SELECT count(*) AS n FROM "_etl_lookback"`))[0]!['n'])).toBe(2 * NIGHTS);

      expect(await latestLookbacks(trimmed)).toEqual(await latestLookbacks(full));
      expect((await latestLookbacks(trimmed)).find((l) => l.stream === 'kpis')).toMatchObject({
        days: 5,
        since: until(20),
        previousDays: 2,
      });
      const since = until(NIGHTS - 57);
      const evidence = await lookbackEvidence(trimmed, since);
      expect(evidence.get('kpis')?.lastProbe).toEqual(until(17));
      expect(evidence.get('sessions')?.lastProbe).toBeUndefined();
    } finally {
      await trimmed.close();
      await full.close();
    }
  });
});
