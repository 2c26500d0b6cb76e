// The registry is the one source of every stream: its tables, their DDL, its options and its plan all come from the
// declaration, and no code outside src/streams/ switches over stream names.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { ConfigError } from '../../src/errors.js';
import { schemaSql } from '../../src/load/schema-sql.js';
import { BOOKKEEPING_COLUMNS, PARTITION_COLUMN } from '../../src/load/table-definition.js';
import { TABLE_SPECS, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { cursorWindows } from '../../src/extract/incremental-cursor.js';
import { buildPlan } from '../../src/pipeline/plan.js';
import { tablesOf } from '../../src/pipeline/run-pipeline.js';
import { STREAMS, STREAM_NAMES } from '../../src/streams/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');
const pipelineWith = (name: string, options: string): string =>
  `name: t\nstart_date: 2025-01-01\nstreams:\n  ${name}: ${options}\n`;

describe('the stream registry', () => {
  it('lists each stream once, each table once, and the warehouse tables are exactly the declared ones', () => {
    expect(new Set(STREAM_NAMES).size).toBe(STREAMS.length);
    const declared = STREAMS.flatMap((s) => s.tables.map((t) => t.name));
    expect(new Set(declared).size).toBe(declared.length);
    // A table that keeps its definitions' history is followed by its `<table>_history`.
    const withHistory = STREAMS.flatMap((s) =>
      s.tables.flatMap((t) => (t.history ? [t.name, `${t.name}_history`] : [t.name])),
    );
    expect(TABLE_SPECS.map((t) => t.name)).toEqual([...withHistory, 'listed_objects']);
    for (const stream of STREAMS) expect(tablesOf([stream.name])).toEqual(stream.tables.map((t) => t.name));
  });

  it('gives every stream an endpoint with a permission, a description and a working example of its options', () => {
    for (const stream of STREAMS) {
      expect(stream.endpoint.permission, stream.name).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
      expect(stream.description.length, stream.name).toBeGreaterThan(10);
      const pipeline = parsePipelineText(pipelineWith(stream.name, stream.options.example), `${stream.name}.yaml`);
      expect(pipeline.streamNames).toEqual([stream.name]);
    }
  });

  it("takes each stream's options from its declaration: its keys are accepted, any other key is refused naming them", () => {
    for (const stream of STREAMS) {
      let refusal: unknown;
      try {
        parsePipelineText(pipelineWith(stream.name, '{ not_an_option: 1 }'), 'x.yaml');
      } catch (err) {
        refusal = err;
      }
      expect(refusal, stream.name).toBeInstanceOf(ConfigError);
      expect((refusal as Error).message).toContain(`streams.${stream.name}.not_an_option`);
      if (stream.options.keys.length === 0) expect((refusal as Error).message).toContain('takes no options');
    }
  });

  it('plans each stream from its declaration: its pool, its series or ids, windows within its largest length', () => {
    for (const stream of STREAMS) {
      const pipeline = parsePipelineText(pipelineWith(stream.name, stream.options.example), 'x.yaml');
      const plan = buildPlan({
        pipeline,
        streams: pipeline.streamNames,
        states: [],
        from: pipeline.startDate,
        until: DateTime.fromISO('2025-06-01T00:00:00Z', { zone: 'utc' }),
      });
      const summary = plan.streams[0]!;
      expect(summary.pool, stream.name).toBe(stream.endpoint.pool);
      const options = pipeline.streams[stream.name] as never;
      if (stream.kind === 'series') {
        expect(plan.series.map((s) => s.seriesKey)).toHaveLength(stream.series(options).length);
        for (const s of plan.series)
          for (const w of cursorWindows(s.cursor)) expect(w.length).toBeLessThanOrEqual(s.maxUnits);
      } else if (stream.kind === 'per_id') {
        expect(plan.perId[0]!.ids).toEqual(stream.ids(options));
      } else if (stream.kind === 'paged_list') {
        expect(plan.lists[0]!.estimatedRequests).toBe(stream.estimatePages(0));
      } else {
        expect(summary.requests, `${stream.name}: a listing costs only discovery's pages`).toBe(0);
      }
    }
  });

  it('has no switch over stream names outside src/streams/ (the emulator, which serves endpoints, aside)', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) {
          if (!['streams', 'emulator'].includes(entry)) walk(path);
        } else if (path.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const name of STREAM_NAMES) {
            if (new RegExp(`(case|===|!==)\\s*'${name}'`).test(text)) offenders.push(`${path}: ${name}`);
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(offenders).toEqual([]);
  });
});

describe('the schema', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engage-registry-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('is created from the declarations: every table with its columns, bookkeeping and partition column, and a comment', async () => {
    const wh = await Warehouse.open(join(dir, 'schema.duckdb'), WAREHOUSE_TABLES);
    try {
      for (const spec of TABLE_SPECS) {
        const cols = await wh.query(
          `SELECT column_name AS n, data_type AS t FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
          [spec.name],
        );
        const expected = [...spec.columns, ...BOOKKEEPING_COLUMNS].map((c) => [
          c.name,
          c.type === 'JSON' ? 'JSON' : c.type,
        ]);
        if (spec.partitionSource) expected.push([PARTITION_COLUMN, 'VARCHAR']);
        expect(
          cols.map((c) => [c['n'], c['t']]),
          spec.name,
        ).toEqual(expected);
        const [comment] = await wh.query(`SELECT comment FROM duckdb_tables() WHERE table_name = $1`, [spec.name]);
        expect(comment?.['comment'], spec.name).toBe(`${spec.description} Key: ${spec.key.join(', ')}.`);
      }
    } finally {
      await wh.close();
    }
  });

  it('is written to sql/generated/tables.sql exactly as generated (run `npm run sql` after changing a declaration)', () => {
    expect(readFileSync(join(ROOT, 'sql', 'generated', 'tables.sql'), 'utf8')).toBe(schemaSql(TABLE_SPECS));
  });
});
