// One real pipeline run against a real emulator on port 0, into a DuckDB file in a temp dir: what every request and
// wall-time figure of the benchmark is measured on. The emulator is ours (not --emulator) so its counters can be read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../src/config/run-options.js';
import type { Emulator, EmulatorOptions } from '../src/emulator/server.js';
import { createEmulator } from '../src/emulator/server.js';
import { Warehouse } from '../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import type { Plan } from '../src/pipeline/plan.js';
import { planWithoutRunning } from '../src/pipeline/plan-for-run.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import type { PipelineDeps, RunSummary } from '../src/pipeline/run-pipeline.js';
import type { RunEvent } from '../src/pipeline/run-events.js';

export interface MeasuredRun {
  summary: RunSummary;
  /** The plan the run followed (planned read-only just before it, as `engage-etl plan` does). */
  plan: Plan;
  /**
   * Requests per stream as the run itself planned them, after discovery resolved `all` (the read-only plan above can
   * only count what the last run's lists held).
   */
  planned: { stream: string; requests: number; minimum: number }[];
  wallMs: number;
  /** Requests the emulator received during this run, per pool, and its 429s from exhausted pools. */
  received: number;
  rateLimited: number;
}

/** A temp dir with a pipeline file and an emulator frozen at `now`; runs and reads stay in it until `close()`. */
export class EmulatorBench {
  readonly dir: string;
  readonly emulator: Emulator;
  readonly pipelinePath: string;

  private constructor(dir: string, emulator: Emulator, pipelinePath: string) {
    this.dir = dir;
    this.emulator = emulator;
    this.pipelinePath = pipelinePath;
  }

  static async create(pipeline: string, emulator: EmulatorOptions & { now: string }): Promise<EmulatorBench> {
    const dir = await mkdtemp(join(tmpdir(), 'engage-bench-'));
    const pipelinePath = join(dir, 'pipeline.yaml');
    // The demo pipeline's report goes into the bench's own folder, not the working folder's data/.
    await writeFile(
      pipelinePath,
      pipeline.replace(/^report:.*$/m, `report: { path: ${JSON.stringify(join(dir, 'report.html'))} }`),
    );
    return new EmulatorBench(dir, await createEmulator({ seed: 1, port: 0, ...emulator }), pipelinePath);
  }

  get db(): string {
    return join(this.dir, 'engage.duckdb');
  }

  /** One `engage-etl run` up to `until` with these client settings; wall time from call to summary. */
  async run(until: string, client: PipelineDeps['client'] = {}): Promise<MeasuredRun> {
    const opts = resolveRunOptions(
      {
        pipeline: this.pipelinePath,
        baseUrl: this.emulator.url,
        apiKey: this.emulator.demoApiKey,
        db: this.db,
        out: join(this.dir, 'parquet'),
        until,
      },
      {},
      DateTime.utc(),
    );
    const { plan } = await planWithoutRunning(opts);
    const before = { requests: this.emulator.stats.requests, rateLimited: this.emulator.stats.rateLimited };
    const started = performance.now();
    let planned: MeasuredRun['planned'] = [];
    const reporter = {
      emit: (e: RunEvent) => void (e.type === 'planned' ? (planned = [...planned, ...e.streams]) : undefined),
      close: () => undefined,
    };
    const summary = await runPipeline(opts, { client, reporter });
    return {
      summary,
      plan,
      planned,
      wallMs: performance.now() - started,
      received: this.emulator.stats.requests - before.requests,
      rateLimited: this.emulator.stats.rateLimited - before.rateLimited,
    };
  }

  async count(table: string): Promise<number> {
    const wh = await Warehouse.open(this.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      const [row] = await wh.query(`SELECT count(*) AS n FROM "${table}"`);
      return Number(row?.['n'] ?? 0);
    } finally {
      await wh.close();
    }
  }

  async close(): Promise<void> {
    await this.emulator.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
