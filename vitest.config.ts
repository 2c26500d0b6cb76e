import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: `fast` is `npm test` (every module's correctness, about ten minutes on 2 cores) and `slow` is
// `npm run test:slow`: the long end-to-end suites — the nightly soak, timed pacing, the report in a browser, the
// scheduler recipes, runs killed at every step and resumed, and whole runs against variant servers. A path given on
// the command line (`npx vitest run test/…`) runs in whichever project holds it.
const SLOW = [
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
