// The database's SQL has its homes: load/ reads no stream declarations (the tables are handed to Warehouse.open), no
// module of src/ imports one that imports it back, and outside load/ only the modules that own their SQL run any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** Every relative import and re-export of `file` (type-only ones too), as files of src/. */
function imports(file: string): string[] {
  const found: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)) {
    found.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  }
  return found;
}

/**
 * The modules outside load/ that run SQL themselves, each for its reason: the views and the report are SQL; `query`
 * runs the user's; push's ledger speaks push's types; the export's COPY writes Parquet; the dbt catalog reads DuckDB's
 * own catalog; plan-for-run and run-metrics read series state, holes and details, whose store is series-state-store.ts.
 */
const OWN_SQL = new Set([
  'views/analytics-views.ts',
  'views/unfilled-views.ts',
  'views/absent-history.ts',
  'report/write-report.ts',
  'report/report-charts.ts',
  'cli/query-output.ts',
  'push/push-ledger.ts',
  'export/export-parquet.ts',
  'dbt/warehouse-catalog.ts',
  'pipeline/plan-for-run.ts',
  'export/run-metrics.ts',
]);

describe('where the SQL lives', () => {
  it('src/load/ imports nothing of src/streams/', () => {
    const load = join(SRC, 'load');
    const found = sources(load).flatMap((f) =>
      imports(f)
        .filter((t) => t.startsWith(join(SRC, 'streams')))
        .map((t) => `${relative(SRC, f)} → ${relative(SRC, t)}`),
    );
    expect(found).toEqual([]);
  });

  it('no module of src/ reaches itself through its imports', () => {
    const graph = new Map(sources(SRC).map((f) => [f, imports(f)]));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('outside src/load/, only the modules that own their SQL run any', () => {
    const running = sources(SRC)
      .filter(
        (f) =>
          !relative(SRC, f).startsWith('load/') &&
          /\.query\(|\bconn\.run\(|\.runAndReadAll\(/.test(readFileSync(f, 'utf8')),
      )
      .map((f) => relative(SRC, f))
      .filter((f) => !OWN_SQL.has(f));
    expect(running).toEqual([]);
  });
});
