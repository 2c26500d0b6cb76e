// Runs the real pipeline against a real emulator on port 0 into a real DuckDB file in a temp dir, and reads tables back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../../../src/config/run-options.js';
import type { RawRunFlags } from '../../../src/config/run-options.js';
import type { Emulator } from '../../../src/emulator/server.js';
import { createEmulator } from '../../../src/emulator/server.js';
import { Warehouse } from '../../../src/load/warehouse.js';
import { TABLE_SPECS, tableSpec, WAREHOUSE_TABLES } from '../../../src/streams/table-specs.js';
import type { TableName } from '../../../src/streams/table-specs.js';
import { runPipeline } from '../../../src/pipeline/run-pipeline.js';
import type { PipelineDeps, RunSummary } from '../../../src/pipeline/run-pipeline.js';

/** Every stream, a few series each, from `startDate`. */
export function testPipeline(startDate = '2025-01-01'): string {
  return `
name: test
start_date: ${startDate}
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*"], products: ["*"] }
  sessions:          { unit: hour, apps: ["*"], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2] }
  kpis:              { metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1] }
  custom_events:     {}
  event_counts:      { events: [achievement_bought, achievement_claimed], unit: day, apps: ["*", app_1] }
  canvas_summary:    { canvases: [cv_1, cv_2], variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2] }
  email_templates:   { ids: [tpl_1, tpl_2] }
  content_blocks:    { ids: [cb_1, cb_2], inclusion_data: true }
  data_integrations: {}
`;
}

export class PipelineFixture {
  readonly dir: string;
  readonly emulator: Emulator;
  readonly db: string;
  readonly out: string;
  readonly pipelinePath: string;

  private constructor(dir: string, emulator: Emulator, pipelinePath: string) {
    this.dir = dir;
    this.emulator = emulator;
    this.db = join(dir, 'engage.duckdb');
    this.out = join(dir, 'parquet');
    this.pipelinePath = pipelinePath;
  }

  /** A temp dir with the pipeline file, and an emulator whose clock stands at `now`. */
  static async create(opts: {
    now: string;
    pipeline?: string;
    emulator?: Parameters<typeof createEmulator>[0];
  }): Promise<PipelineFixture> {
    const dir = await mkdtemp(join(tmpdir(), 'engage-pipeline-'));
    const pipelinePath = join(dir, 'pipeline.yaml');
    await writeFile(pipelinePath, opts.pipeline ?? testPipeline());
    const emulator = await createEmulator({ seed: 1, port: 0, ...opts.emulator, now: opts.now });
    return new PipelineFixture(dir, emulator, pipelinePath);
  }

  /** One `engage-etl run` in-process; `until` defaults to the emulator's now. */
  async run(flags: RawRunFlags = {}, deps: PipelineDeps = {}): Promise<RunSummary> {
    const opts = resolveRunOptions(
      {
        pipeline: this.pipelinePath,
        baseUrl: this.emulator.url,
        apiKey: this.emulator.demoApiKey,
        db: this.db,
        out: this.out,
        ...flags,
      },
      {},
      this.emulator.clock.now().plus({ minutes: 1 }),
    );
    const until = flags.until ? opts.until : this.emulator.clock.now();
    return runPipeline({ ...opts, until }, { client: { backoffBaseMs: 5, ...deps.client }, ...deps });
  }

  async query(sql: string): Promise<Record<string, unknown>[]> {
    const wh = await Warehouse.open(this.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      return await wh.query(sql);
    } finally {
      await wh.close();
    }
  }

  /** Every data column (no `_` bookkeeping) of a table, sorted by key: what two runs must agree on. */
  async tableData(table: TableName): Promise<Record<string, unknown>[]> {
    const spec = tableSpec(table);
    const cols = spec.columns.map((c) => `"${c.name}"`).join(', ');
    return this.query(`SELECT ${cols} FROM "${table}" ORDER BY ${spec.key.map((k) => `"${k}"`).join(', ')}`);
  }

  async allTablesData(): Promise<Record<string, Record<string, unknown>[]>> {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const spec of TABLE_SPECS) out[spec.name] = await this.tableData(spec.name);
    return out;
  }

  async close(): Promise<void> {
    await this.emulator.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function utcDay(iso: string): Date {
  return DateTime.fromISO(iso, { zone: 'utc' }).toJSDate();
}

/** A DuckDB number as JS reads it: BIGINT comes back as a bigint. */
export function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}
