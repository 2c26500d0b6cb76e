#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script). It runs with
// Node's and DuckDB's default memory settings: what a run holds is bounded by its design (docs/performance.md).
import('../dist/src/cli/main.js').then(
  ({ main }) => main(process.argv),
  (error) => {
    console.error(`engage-etl: cannot load the compiled CLI (${error.message}); run \`npm run build\` first`);
    process.exitCode = 1;
  },
);
