// A Node binary of a given major version for tests that run a child on each supported Node: this process's own, the
// system's, or the one .ci/run installs from the registry's node-linux-<arch> package into its cache folder
// (ENGAGE_CI_NODE_CACHE, by default ~/.cache/engage-etl-ci/node<major>/).
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { optionalTool } from './optional-tool.js';
import type { OptionalTool } from './optional-tool.js';

export const CI_NODE_CACHE = process.env['ENGAGE_CI_NODE_CACHE'] ?? join(homedir(), '.cache', 'engage-etl-ci');

function majorOf(binary: string): number | undefined {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? Number(/^v(\d+)\./.exec(out.stdout.trim())?.[1]) : undefined;
}

/** The Node binary of `major`, with the tool's name and how to get it for a visible skip. */
export function nodeOfMajor(major: number): OptionalTool & { path: string } {
  const candidates = [
    process.execPath,
    '/usr/bin/node',
    '/usr/local/bin/node',
    join(CI_NODE_CACHE, `node${major}`, 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'),
  ];
  const path = candidates.find((c) => majorOf(c) === major) ?? candidates.at(-1)!;
  const install = `npm install --prefix ${join(CI_NODE_CACHE, `node${major}`)} node-linux-${process.arch}@${major} (as .ci/run does)`;
  return {
    ...optionalTool(`node ${major}`, install, { command: path, args: ['--version'] }),
    available: majorOf(path) === major,
    path,
  };
}
