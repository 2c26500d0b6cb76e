// Tests that drive a program from the operating system (a headless browser, tmux, python3) run where it is installed
// and otherwise skip with one visible line saying what to install — never pass in its place. Under
// ENGAGE_REQUIRE_TOOLS=1 (set by .ci/run, which installs them) a missing tool fails instead, so CI can never skip them.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

export interface OptionalTool {
  /** What the tests call it, e.g. `chromium-headless-shell`. */
  name: string;
  available: boolean;
  /** The command that installs it, e.g. `apt-get install chromium-headless-shell`. */
  install: string;
}

/** A tool found by running it (`tmux -V`) or, with `path`, by the file existing. */
export function optionalTool(
  name: string,
  install: string,
  probe: { path: string } | { command: string; args: string[] },
): OptionalTool {
  const available = 'path' in probe ? existsSync(probe.path) : spawnSync(probe.command, probe.args).status === 0;
  return { name, available, install };
}

/** True when a missing tool must fail the suite rather than skip (CI). */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['ENGAGE_REQUIRE_TOOLS'] === '1';
}

/**
 * Declares what stands in for the tests of a missing tool: a failing test under ENGAGE_REQUIRE_TOOLS=1, otherwise a
 * skipped one whose title says what to install, plus that line on stderr (a skip is easy to miss in a long run).
 */
export function whenToolMissing(tool: OptionalTool, what: string): void {
  if (tool.available) return;
  const line = `${tool.name} not found: ${what} skipped; install it with \`${tool.install}\``;
  if (toolsRequired()) {
    describe(`${what} (requires ${tool.name})`, () => {
      it(`needs ${tool.name}, which ENGAGE_REQUIRE_TOOLS=1 makes mandatory`, () => {
        throw new Error(`${tool.name} is not installed but ENGAGE_REQUIRE_TOOLS=1 requires it: ${tool.install}`);
      });
    });
    return;
  }
  process.stderr.write(`[skipped] ${line}\n`);
  describe.skip(`[skipped] ${line}`, () => {
    it('did not run', () => undefined);
  });
}
