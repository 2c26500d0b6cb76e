import { defineConfig } from 'vitest/config';

// Integration tests start real servers and DuckDB files; on 2 cores a few files at once is the sweet spot.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
