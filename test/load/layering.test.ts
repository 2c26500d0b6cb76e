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

/** What runs SQL in a module: a query, a statement on a connection, a read of all rows. */
const RUNS_SQL = /\.query\(|\bconn\.run\(|\.runAndReadAll\(/g;

/** The layers whose work is SQL: the views, the report, and `query`, which runs the user's. */
const SQL_LAYERS = new Set([
  'views/analytics-views.ts',
  'views/unfilled-views.ts',
  'views/absent-history.ts',
  'report/write-report.ts',
  'report/report-charts.ts',
  'cli/query-output.ts',
]);

/**
 * The other modules outside load/ that run SQL, with how many calls, each for its reason: push's ledger speaks push's
 * types; the export's COPY writes Parquet and it counts a placed file's rows from its Parquet metadata; the dbt catalog
 * reads DuckDB's own catalog. The bookkeeping tables are read and written through their stores in load/.
 */
const OWN_SQL: Record<string, number> = {
  'push/push-ledger.ts': 5,
  'export/export-parquet.ts': 3,
  'dbt/warehouse-catalog.ts': 2,
};

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

  it('outside src/load/, only the SQL layers and the few modules that own their SQL run any, each as often as listed', () => {
    const running = Object.fromEntries(
      sources(SRC)
        .map((f) => [relative(SRC, f), readFileSync(f, 'utf8').match(RUNS_SQL)?.length ?? 0] as const)
        .filter(([f, calls]) => calls > 0 && !f.startsWith('load/') && !SQL_LAYERS.has(f)),
    );
    expect(running).toEqual(OWN_SQL);
  });
});
