// Runs the real pipeline against any base URL into its own DuckDB file and Parquet folder in one temp dir, and compares
// two runs' warehouses table by table on their data columns (EXCEPT ALL both ways, in DuckDB itself).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { loadPipelineFile } from '../../../src/config/load-pipeline-file.js';
import { resolveRunOptions } from '../../../src/config/run-options.js';
import type { RawRunFlags } from '../../../src/config/run-options.js';
import { Warehouse } from '../../../src/load/warehouse.js';
import { TABLE_SPECS, WAREHOUSE_TABLES } from '../../../src/streams/table-specs.js';
import type { TableName } from '../../../src/streams/table-specs.js';
import { buildPlan } from '../../../src/pipeline/plan.js';
import { runPipeline } from '../../../src/pipeline/run-pipeline.js';
import type { PipelineDeps, RunSummary } from '../../../src/pipeline/run-pipeline.js';
import type { StreamName } from '../../../src/config/pipeline-definition.js';
import type { Emulator } from '../../../src/emulator/server.js';
import type { VariantOptions } from './variant-server.js';
import { VariantServer } from './variant-server.js';

export interface RunRequest {
  /** Name of the run's database and Parquet folder inside the temp dir. */
  name: string;
  baseUrl: string;
  apiKey: string;
  /** `--from` */
  from: string;
  /** `--until` */
  until: string;
  /** Client settings (timeouts, backoff). */
  client?: PipelineDeps['client'];
  /** More flags of the run, e.g. `{ timeBudget: '2s' }`. */
  flags?: Partial<RawRunFlags>;
}

export interface TableDiff {
  table: TableName;
  /** Rows of the left warehouse that the right one lacks (multiset difference), and the reverse. */
  onlyLeft: number;
  onlyRight: number;
  /** Up to three differing rows of each side, as JSON, for the failure message. */
  samples: string[];
}

/** A temp dir holding one pipeline file and the warehouses of every run made through it. */
export class PipelineRuns {
  readonly dir: string;
  readonly pipelinePath: string;

  private constructor(dir: string, pipelinePath: string) {
    this.dir = dir;
    this.pipelinePath = pipelinePath;
  }

  static async create(pipelineYaml: string): Promise<PipelineRuns> {
    const dir = await mkdtemp(join(tmpdir(), 'engage-independent-'));
    const pipelinePath = join(dir, 'pipeline.yaml');
    await writeFile(pipelinePath, pipelineYaml);
    return new PipelineRuns(dir, pipelinePath);
  }

  dbOf(name: string): string {
    return join(this.dir, `${name}.duckdb`);
  }

  /** One `engage-etl run --base-url … --from … --until …`, in process, through resolveRunOptions like the CLI. */
  async run(r: RunRequest): Promise<RunSummary> {
    const until = DateTime.fromISO(r.until, { zone: 'utc' });
    const opts = resolveRunOptions(
      {
        pipeline: this.pipelinePath,
        baseUrl: r.baseUrl,
        apiKey: r.apiKey,
        db: this.dbOf(r.name),
        out: join(this.dir, `${r.name}-parquet`),
        from: r.from,
        until: r.until,
        ...r.flags,
      },
      {},
      until.plus({ minutes: 1 }),
    );
    return runPipeline(opts, { client: { backoffBaseMs: 5, backoffMaxMs: 50, ...r.client } });
  }

  /** One run through a variant server in front of `emulator`, started for this run and closed after it. */
  async runThrough(
    emulator: Emulator,
    r: Omit<RunRequest, 'baseUrl' | 'apiKey'>,
    options: VariantOptions,
  ): Promise<{ summary: RunSummary; variant: VariantServer }> {
    const variant = await VariantServer.create(emulator, options);
    try {
      return { summary: await this.run({ ...r, baseUrl: variant.url, apiKey: emulator.demoApiKey }), variant };
    } finally {
      await variant.close();
    }
  }

  /**
   * Windows of the `length`/`ending_at` series a first run over [from, until] plans: the requests no client can do
   * without, and the ones a server with another window reading may need one follow-up each for. (Canvas days read from
   * data_summary ask with `starting_at`, which every reading agrees on.)
   */
  seriesWindows(from: string, until: string): number {
    const pipeline = loadPipelineFile(this.pipelinePath);
    const plan = buildPlan({
      pipeline,
      streams: Object.keys(pipeline.streams) as StreamName[],
      states: [],
      from: DateTime.fromISO(from, { zone: 'utc' }),
      until: DateTime.fromISO(until, { zone: 'utc' }),
    });
    return plan.series
      .filter((s) => s.endpoint.path !== '/canvas/data_summary')
      .reduce((n, s) => n + s.cursor.windowCount, 0);
  }

  /**
   * Every table of `left` against the same table of `right`, on the data columns only (no `_` bookkeeping). `where`
   * restricts both sides per table (SQL over the table's own columns), for differences a test means to allow.
   */
  async diff(left: string, right: string, where: Partial<Record<TableName, string>> = {}): Promise<TableDiff[]> {
    const wh = await Warehouse.open(this.dbOf(left), WAREHOUSE_TABLES, { readOnly: true });
    try {
      await wh.query(`ATTACH '${this.dbOf(right).replaceAll("'", "''")}' AS other (READ_ONLY)`);
      const out: TableDiff[] = [];
      for (const spec of TABLE_SPECS) {
        const cols = spec.columns.map((c) => `"${c.name}"`).join(', ');
        const filter = where[spec.name] ? ` WHERE ${where[spec.name]}` : '';
        const l = `SELECT ${cols} FROM main."${spec.name}"${filter}`;
        const r = `SELECT ${cols} FROM other."${spec.name}"${filter}`;
        const [counts] = await wh.query(
          `SELECT (SELECT count(*) FROM (${l} EXCEPT ALL ${r})) AS onlyLeft, (SELECT count(*) FROM (${r} EXCEPT ALL ${l})) AS onlyRight`,
        );
        const onlyLeft = Number(counts!['onlyLeft']);
        const onlyRight = Number(counts!['onlyRight']);
        const samples: string[] = [];
        if (onlyLeft + onlyRight > 0) {
          for (const [side, q] of [
            ['left', `${l} EXCEPT ALL ${r}`],
            ['right', `${r} EXCEPT ALL ${l}`],
          ] as const) {
            for (const row of await wh.query(`SELECT * FROM (${q}) LIMIT 3`))
              samples.push(
                `${side}: ${JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
              );
          }
        }
        out.push({ table: spec.name, onlyLeft, onlyRight, samples });
      }
      await wh.query('DETACH other');
      return out;
    } finally {
      await wh.close();
    }
  }

  /** Row count of each table in one run's warehouse. */
  async counts(name: string): Promise<Record<string, number>> {
    const wh = await Warehouse.open(this.dbOf(name), WAREHOUSE_TABLES, { readOnly: true });
    try {
      const out: Record<string, number> = {};
      for (const spec of TABLE_SPECS)
        out[spec.name] = Number((await wh.query(`SELECT count(*) AS n FROM "${spec.name}"`))[0]!['n']);
      return out;
    } finally {
      await wh.close();
    }
  }

  async query(name: string, sql: string): Promise<Record<string, unknown>[]> {
    const wh = await Warehouse.open(this.dbOf(name), WAREHOUSE_TABLES, { readOnly: true });
    try {
      return await wh.query(sql);
    } finally {
      await wh.close();
    }
  }

  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The differing tables only, as readable lines (an empty list means the two warehouses hold the same data). */
export function differences(diffs: readonly TableDiff[]): string[] {
  return diffs
    .filter((d) => d.onlyLeft + d.onlyRight > 0)
    .map((d) => `${d.table}: ${d.onlyLeft} row(s) only left, ${d.onlyRight} only right\n  ${d.samples.join('\n  ')}`);
}
