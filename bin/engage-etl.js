#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
//
// This file is CommonJS (bin/package.json) so that what follows runs before libuv starts its thread pool: an ES module
// entry has already started it by the time its first line runs, and the pool reads UV_THREADPOOL_SIZE once. DuckDB's
// statements run on that pool, and glibc gives every thread that allocates an arena of its own, which keeps what it
// frees (docs/decisions.md, "The entry point's memory settings"). A value the user set wins, for each setting.
process.env.UV_THREADPOOL_SIZE ??= '2';

// DuckDB's own allocator (jemalloc) reads its settings when DuckDB's library loads, which is after this line: pages a
// commit freed go back to the system after 250 ms, directly, instead of DuckDB's 1 s and then 1 s more as lazily freed
// pages that still count as resident. Two 20k runs side by side, 12 minutes: a peak 24-47 MiB lower (three pairs) for
// 7-10 % more CPU per request (docs/decisions.md, "The entry point's memory settings").
process.env.DUCKDB_JE_MALLOC_CONF ??= 'dirty_decay_ms:250,muzzy_decay_ms:0';

// Two settings are read only when the process starts, before any line of ours: glibc's MALLOC_ARENA_MAX (one arena
// for every thread) and the size of V8's young generation (8 MB semi-spaces; Node 24 on a machine with much memory
// makes them 32 MB, and its heap then held about 100 MB more through a 20k run). When one is missing, the same process
// is started again (same pid, arguments and stdio, through execve) with it. Node 20 has no process.execve and goes on
// as it is (its semi-spaces grow to 16 MB).
const SEMI_SPACE_MB = '8';
const arena = process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined;
const semiSpace = ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
  a.startsWith('--max-semi-space-size'),
);
if ((arena || semiSpace) && process.platform !== 'win32' && typeof process.execve === 'function') {
  try {
    process.execve(
      process.execPath,
      [
        process.execPath,
        ...(semiSpace ? [`--max-semi-space-size=${SEMI_SPACE_MB}`] : []),
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

import('../dist/src/cli/main.js').then(
  ({ main }) => main(process.argv),
  (error) => {
    console.error(`engage-etl: cannot load the compiled CLI (${error.message}); run \`npm run build\` first`);
    process.exitCode = 1;
  },
);
