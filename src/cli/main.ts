// The command line: the only code that reads argv or calls process.exit. Each command lives in its own make*Command file.
import { Command, CommanderError } from 'commander';
import { applyDotEnv } from '../config/dot-env.js';
import { EngageError } from '../errors.js';
import { armCrashPoint, CRASH_AT_ENV } from '../process/crash-point.js';
import { stopSignalReceived } from '../process/stop-signals.js';
import { makeCheckCommand } from './check-command.js';
import { makeDbtCommand } from './dbt-command.js';
import { makeEmulatorCommand } from './emulator-command.js';
import { EXIT_CODE_HELP, exitCodeOf, ReportedError } from './exit-codes.js';
import { makeExportCommand } from './export-command.js';
import { makeInitCommand } from './init-command.js';
import { reportUsageErrorAsJson } from './json-line.js';
import { makePlanCommand } from './plan-command.js';
import { makePushCommand } from './push-command.js';
import { makeQueryCommand } from './query-command.js';
import { makeReportCommand } from './report-command.js';
import { makeRunCommand } from './run-command.js';
import { makeStatusCommand } from './status-command.js';
import { makeViewsCommand } from './views-command.js';
import { packageVersion } from './package-version.js';

export function makeProgram(): Command {
  const program = new Command('engage-etl')
    .description(
      "Export a customer-engagement platform's analytics into DuckDB and Parquet, emulate its REST API, push SQL results to its write endpoints.",
    )
    .version(packageVersion())
    .showHelpAfterError()
    .addCommand(makeInitCommand())
    .addCommand(makeRunCommand())
    .addCommand(makePlanCommand())
    .addCommand(makeStatusCommand())
    .addCommand(makeCheckCommand())
    .addCommand(makeExportCommand())
    .addCommand(makeQueryCommand())
    .addCommand(makeEmulatorCommand())
    .addCommand(makePushCommand())
    .addCommand(makeViewsCommand())
    .addCommand(makeDbtCommand())
    .addCommand(makeReportCommand());
  // One contract for every command: each --help ends with the same exit-code table.
  for (const cmd of [program, ...program.commands]) cmd.addHelpText('after', EXIT_CODE_HELP);
  return program;
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
    applyDotEnv(process.env);
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeOf(err);
    // commander already printed its message on stderr; with --json, stdout still gets the command's one line
    if (err instanceof CommanderError) {
      reportUsageErrorAsJson(program, argv.slice(2), err);
      return;
    }
    // a ReportedError was already told (e.g. as a JSON line)
    if (err instanceof ReportedError) return;
    process.stderr.write(`engage-etl: ${oneLine(err)}\n`);
  } finally {
    if (stopSignalReceived()) await exitAfterOutput();
  }
}

/** Ends the process with its exit code once stdout and stderr have taken everything written to them. */
async function exitAfterOutput(): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(process.exitCode ?? 0);
}

function oneLine(err: unknown): string {
  const text = err instanceof EngageError || err instanceof Error ? err.message : String(err);
  return text.replace(/\s*\n\s*/g, ' ');
}
