// The export a user would otherwise write: one request per series and day, sent one after another, each row INSERTed
// on its own. Measured against our run of the same pipeline (same emulator, same latency), for the speed-up factor.
import { join } from 'node:path';
import { DuckDBInstance, TIMESTAMP, VARCHAR, BIGINT } from '@duckdb/node-api';
import { timestampValue } from '@duckdb/node-api';
import { EmulatorBench } from './emulator-run.js';

export interface NaiveFigures {
  days: number;
  series: number;
  naiveRequests: number;
  naiveMs: number;
  naiveRows: number;
  oursRequests: number;
  oursMs: number;
  oursRows: number;
  speedUp: number;
}

const SERIES = [
  { app: undefined, product: undefined },
  { app: 'app_1', product: undefined },
  { app: undefined, product: 'gems_small' },
  { app: 'app_1', product: 'gems_small' },
] as const;
const FIRST_DAY = '2025-11-02';
const UNTIL = '2026-01-01T00:00:00Z';

const PIPELINE = `
name: naive
start_date: ${FIRST_DAY}
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
`;

async function naiveExport(
  bench: EmulatorBench,
  days: number,
): Promise<{ ms: number; requests: number; rows: number }> {
  const instance = await DuckDBInstance.create(join(bench.dir, 'naive.duckdb'));
  const conn = await instance.connect();
  let requests = 0;
  let rows = 0;
  try {
    await conn.run(
      'CREATE TABLE purchase_quantity (app_id VARCHAR, product VARCHAR, unit VARCHAR, time TIMESTAMP, purchase_quantity BIGINT)',
    );
    const insert = await conn.prepare('INSERT INTO purchase_quantity VALUES ($1, $2, $3, $4, $5)');
    const started = performance.now();
    for (const s of SERIES) {
      for (let d = 0; d < days; d++) {
        const day = new Date(Date.parse(`${FIRST_DAY}T00:00:00Z`) + d * 86_400_000);
        const q = new URLSearchParams({
          length: '1',
          unit: 'day',
          ending_at: `${day.toISOString().slice(0, 10)}T23:59:59Z`,
        });
        if (s.app) q.set('app_id', s.app);
        if (s.product) q.set('product', s.product);
        const res = await fetch(`${bench.emulator.url}/purchases/quantity_series?${q}`, {
          headers: { Authorization: `Bearer ${bench.emulator.demoApiKey}` },
        });
        requests++;
        if (!res.ok) throw new Error(`naive export: ${res.status} for ${q}`);
        const body = (await res.json()) as { data: { time: string; purchase_quantity: number }[] };
        for (const point of body.data) {
          insert.bind(
            [
              s.app ?? '*',
              s.product ?? '*',
              'day',
              timestampValue(BigInt(Date.parse(point.time)) * 1000n),
              BigInt(point.purchase_quantity),
            ],
            [VARCHAR, VARCHAR, VARCHAR, TIMESTAMP, BIGINT],
          );
          await insert.run();
          rows++;
        }
      }
    }
    return { ms: performance.now() - started, requests, rows };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

export async function measureNaive(latencyMs: number): Promise<NaiveFigures> {
  const days = (Date.parse(UNTIL) - Date.parse(`${FIRST_DAY}T00:00:00Z`)) / 86_400_000;
  const bench = await EmulatorBench.create(PIPELINE, { now: UNTIL, latencyMs });
  try {
    const naive = await naiveExport(bench, days);
    const ours = await bench.run(UNTIL);
    const oursRows = await bench.count('purchase_quantity');
    return {
      days,
      series: SERIES.length,
      naiveRequests: naive.requests,
      naiveMs: naive.ms,
      naiveRows: naive.rows,
      oursRequests: ours.received,
      oursMs: ours.wallMs,
      oursRows,
      speedUp: naive.ms / ours.wallMs,
    };
  } finally {
    await bench.close();
  }
}
