// `--json` is one line on stdout for every command that takes it, on success and on failure: the command's result, its
// `exit_code` (the contract of exit-codes.ts) and `error` (null on success), so a scheduler appending stdout to a file
// gets a file in which every line parses.
import { CommanderError } from 'commander';
import type { Command } from 'commander';
import { exitCodeOf, ReportedError } from './exit-codes.js';

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Writes `fields` with `exit_code` and `error` as one JSON line on stdout (bigints as strings). */
export function writeJsonLine(fields: Record<string, unknown>, exitCode: number, error: unknown): void {
  const line = JSON.stringify(
    { ...fields, exit_code: exitCode, error: error === null ? null : messageOf(error) },
    (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
  );
  process.stdout.write(`${line}\n`);
}

/**
 * Reports `err` as the command's JSON line (with what the command knew, `fields`) and returns the error main then only
 * turns into the exit code: throw it.
 */
export function reportedAsJson(err: unknown, fields: Record<string, unknown> = {}): ReportedError {
  const exitCode = exitCodeOf(err);
  writeJsonLine(fields, exitCode, err);
  return new ReportedError(exitCode, err);
}

/** Runs a command's action; with `json`, a failure it did not report itself becomes its one JSON line. */
export async function withJsonFailure(json: boolean | undefined, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (!json || err instanceof ReportedError) throw err;
    throw reportedAsJson(err);
  }
}

/**
 * A usage error commander found before the action ran (an unknown flag, a bad value), for a command line that asked for
 * `--json` of a command that takes it: reported as its JSON line. Returns whether it was.
 */
export function reportUsageErrorAsJson(program: Command, args: readonly string[], err: unknown): boolean {
  if (!(err instanceof CommanderError) || err.exitCode === 0 || !args.includes('--json')) return false;
  const command = program.commands.find((c) => c.name() === args[0]);
  if (!command?.options.some((o) => o.long === '--json')) return false;
  writeJsonLine({}, exitCodeOf(err), err);
  return true;
}
