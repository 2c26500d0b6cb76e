#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
//
// This file is CommonJS (bin/package.json) so that the line below runs before libuv starts its thread pool: an ES
// module entry has already started it by the time its first line runs, and the pool reads UV_THREADPOOL_SIZE once.
// DuckDB's statements run on that pool, and glibc gives every thread that allocates its own arena, which keeps what
// it frees: four threads hold twice the heap of two (docs/decisions.md, "Two libuv threads"). The writer runs one
// statement at a time, so two threads are enough; a value set by the user wins.
process.env.UV_THREADPOOL_SIZE ??= '2';

import('../dist/src/cli/main.js').then(
  ({ main }) => main(process.argv),
  (error) => {
    console.error(`engage-etl: cannot load the compiled CLI (${error.message}); run \`npm run build\` first`);
    process.exitCode = 1;
  },
);
