// The command line: the only code that reads argv or calls process.exit. Each command lives in its own make*Command file.
import { Command, CommanderError } from 'commander';
import { ConfigError, EngageError } from '../errors.js';
import { armCrashPoint, CRASH_AT_ENV } from '../load/crash-point.js';
import { makeEmulatorCommand } from './emulator-command.js';
import { makeExportCommand } from './export-command.js';
import { makePlanCommand } from './plan-command.js';
import { makePushCommand } from './push-command.js';
import { makeQueryCommand } from './query-command.js';
import { makeRunCommand } from './run-command.js';
import { makeStatusCommand } from './status-command.js';

export function makeProgram(): Command {
  return new Command('engage-etl')
    .description('Export a customer-engagement platform\'s analytics into DuckDB and Parquet, emulate its REST API, push SQL results to its write endpoints.')
    .version('0.1.0')
    .showHelpAfterError()
    .addCommand(makeRunCommand())
    .addCommand(makePlanCommand())
    .addCommand(makeStatusCommand())
    .addCommand(makeExportCommand())
    .addCommand(makeQueryCommand())
    .addCommand(makeEmulatorCommand())
    .addCommand(makePushCommand());
}

/** Run the CLI; errors become one line on stderr and a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  // `engage-etl query … | head -1`: once the reader is gone nobody can see the rest, so the command ends quietly, as
  // cat and grep do, instead of crashing with an EPIPE stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const program = makeProgram();
  // addCommand() does not pass exitOverride down: set it on every command so usage errors exit 2, not commander's 1.
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  try {
    armCrashPoint(process.env[CRASH_AT_ENV]);
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeOf(err);
    if (err instanceof CommanderError) return; // commander already printed its message
    process.stderr.write(`engage-etl: ${oneLine(err)}\n`);
  }
}

function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  // A flag, variable or pipeline-file field to fix: a usage error like commander's, not a failure of the run.
  if (err instanceof ConfigError) return 2;
  return 1;
}

function oneLine(err: unknown): string {
  const text = err instanceof EngageError || err instanceof Error ? err.message : String(err);
  return text.replace(/\s*\n\s*/g, ' ');
}
