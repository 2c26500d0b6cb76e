#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
//
// This file is CommonJS (bin/package.json) so that what follows runs before libuv starts its thread pool: an ES module
// entry has already started it by the time its first line runs, and the pool reads UV_THREADPOOL_SIZE once. DuckDB's
// statements run on that pool, and glibc gives every thread that allocates an arena of its own, which keeps what it
// frees (docs/decisions.md, "Two libuv threads" and "One glibc arena"). A value the user set wins, for each setting.
process.env.UV_THREADPOOL_SIZE ??= '2';

// glibc reads MALLOC_ARENA_MAX once, when the process starts, before any line of ours: on Linux the same process is
// started again (same pid, arguments and stdio, through execve) with it set. Node 20 has no process.execve and goes on
// with glibc's default.
if (process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, __filename, ...process.argv.slice(2)], { ...process.env, MALLOC_ARENA_MAX: '1' });
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
