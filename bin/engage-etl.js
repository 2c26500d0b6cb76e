#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
//
// Every process setting of the command line is here and nowhere else (docs/decisions.md, "The entry point's memory
// settings"; `npm run bench` prints what they buy, as the demo's first run with and without them). None is needed for
// the run to be correct or to bound what it holds per row; they lower the peak that allocators' and V8's slack add.
// A value the user set wins, for each of them. ENGAGE_ETL_RUNTIME_DEFAULTS=1 leaves all of them to Node and DuckDB.
//
// This file is CommonJS (bin/package.json) so that what follows runs before libuv starts its thread pool: an ES module
// entry has already started it by the time its first line runs, and the pool reads UV_THREADPOOL_SIZE once.
if (process.env.ENGAGE_ETL_RUNTIME_DEFAULTS !== '1') {
  // DuckDB's statements run on libuv's pool, and glibc gives every thread that allocates an arena of its own, which
  // keeps what it frees.
  process.env.UV_THREADPOOL_SIZE ??= '2';

  // DuckDB's allocator (jemalloc) reads its settings when DuckDB's library loads, which is after this line: pages a
  // commit freed go back to the system after 250 ms, directly, instead of DuckDB's 1 s and then 1 s more as lazily
  // freed pages that still count as resident.
  process.env.DUCKDB_JE_MALLOC_CONF ??= 'dirty_decay_ms:250,muzzy_decay_ms:0';

  // V8: 8 MB semi-spaces (Node 24 on a machine with much memory makes them 32 MB), and an old generation that grows 50 %
  // past what the last full collection left alive (V8's own policy lets it grow to 4×, all of it garbage at the peak).
  const V8_FLAGS = [
    ['--max-semi-space-size', '8'],
    ['--heap-growing-percent', '50'],
  ];
  const userFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((a) =>
    a.replaceAll('_', '-'),
  );
  const v8Missing = V8_FLAGS.filter(([flag]) => !userFlags.some((a) => a.startsWith(flag)));

  // glibc's MALLOC_ARENA_MAX (one arena for every thread) and the semi-spaces are read only when the process starts,
  // before any line of ours. When one is missing, the same process is started again (same pid, arguments and stdio,
  // through execve) with it. Node 20 has no process.execve and goes on with the defaults of those two.
  const arena = process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined;
  if ((arena || v8Missing.length > 0) && process.platform !== 'win32' && typeof process.execve === 'function') {
    try {
      process.execve(
        process.execPath,
        [
          process.execPath,
          ...v8Missing.map(([flag, value]) => `${flag}=${value}`),
          ...process.execArgv,
          __filename,
          ...process.argv.slice(2),
        ],
        { ...process.env, ...(arena ? { MALLOC_ARENA_MAX: '1' } : {}) },
      );
    } catch {
      // Not replaced (a sandbox that forbids execve): the CLI runs as it is.
    }
  }
  // Here the process was not started again (execve replaces it on success). V8 reads the heap growth at every full
  // collection, so it is set now.
  if (v8Missing.some(([flag]) => flag === '--heap-growing-percent')) {
    require('node:v8').setFlagsFromString('--heap-growing-percent=50');
  }
}

import('../dist/src/cli/main.js').then(
  ({ main }) => main(process.argv),
  (error) => {
    console.error(`engage-etl: cannot load the compiled CLI (${error.message}); run \`npm run build\` first`);
    process.exitCode = 1;
  },
);
