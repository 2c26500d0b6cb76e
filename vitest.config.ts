import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: `fast` is `npm test` (every module's correctness and single runs end to end, under ten minutes on 2
// cores) and `slow` is `npm run test:slow`: the long end-to-end suites — the nightly soak, timed pacing, the report in a
// browser, the scheduler recipes, runs killed at every step and resumed, reruns, faults, repairs and bad input across
// runs, whole runs against variant servers and object stores, the budgeted nights of a 200-Canvas backfill, the
// tables compared with an older build's, and the multi-run suites of the views, time budgets, holes, the look-back,
// list reading and the lake's ownership (each module keeps faster tests in `fast`). A path given on the command line
// (`npx vitest run test/…`) runs in whichever project holds it.
const SLOW = [
  'test/reliability/reruns.test.ts',
  'test/reliability/faults.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/reliability/repairs.test.ts',
  'test/reliability/bad-input.test.ts',
  'test/store/object-storage.test.ts',
  'test/store/shared-lake.test.ts',
  'test/store/workspaces.test.ts',
  'test/reliability/soak.test.ts',
  'test/pipeline/pace.test.ts',
  'test/report/report-browser.test.ts',
  'test/cli/recipes.test.ts',
  'test/reliability/crashes.test.ts',
  'test/reliability/readers.test.ts',
  'test/reliability/secrets.test.ts',
  'test/store/object-storage-checkpoints.test.ts',
  'test/store/object-storage-crashes.test.ts',
  'test/pipeline/independent-api.test.ts',
  'test/pipeline/series-failure.test.ts',
  'test/bench/tables-unchanged.test.ts',
  'test/pipeline/newest-first.test.ts',
  'test/pipeline/list-reading.test.ts',
  'test/views/analytics-views.test.ts',
  'test/pipeline/time-budget.test.ts',
  'test/pipeline/holes.test.ts',
  'test/pipeline/auto-lookback.test.ts',
  'test/store/lake-ownership.test.ts',
];

// Integration tests start real servers and DuckDB files; on 2 cores a few files at once is the sweet spot.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW] },
      },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
