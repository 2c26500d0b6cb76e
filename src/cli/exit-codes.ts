// The exit-code contract every command keeps, the text `--help` shows for it, and how an error maps onto it.
import { CommanderError } from 'commander';
import { ConfigError, InterruptedError, NoDatabaseError } from '../errors.js';

/** What a scheduler reads from the exit status of any engage-etl command. */
export const EXIT = {
  /** Done: everything asked for was done. */
  done: 0,
  /** Failed: the command stopped on an error (the service refused, the database could not be written, a stale series). */
  failed: 1,
  /** Usage or configuration error: a bad flag, environment variable or pipeline file, a --db that holds no engage-etl database; nothing was attempted. */
  usage: 2,
  /**
   * Completed, some units or rows not done: a run's holes (units a server left out, asked again by the next runs), a
   * push's rejected rows. A warning alone (a repair, a taken-over lock) does not make it 3. Listed in the output.
   */
  incomplete: 3,
  /** Interrupted by Ctrl-C (SIGINT) or SIGTERM, as shells report it (128 + 2); what was committed is kept. */
  interrupted: 130,
} as const;

/** The table `--help` of every command ends with. */
export const EXIT_CODE_HELP = [
  '',
  'Exit codes:',
  '  0    done',
  '  1    failed (see the error; a resumed run continues from what was committed; run: some series failed for a reason',
  '       retrying cannot fix, a 4xx or an unknown id, the rest was published)',
  '  2    usage or configuration error (bad flag, environment variable or pipeline file, a --db with no engage-etl database); nothing was attempted',
  '  3    completed, but some units or rows were not done (run: missing units, or series that failed after every',
  '       retry on 429/5xx, see status; push: rejected rows)',
  '  130  interrupted (Ctrl-C / SIGTERM); what was committed is kept, run again to resume',
].join('\n');

/**
 * Thrown by a command that has already told the user what went wrong (e.g. as a JSON line): main only sets the exit code.
 * `exitCode` is the contract's code for the error that was reported.
 */
export class ReportedError extends Error {
  readonly exitCode: number;

  constructor(exitCode: number, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ReportedError';
    this.exitCode = exitCode;
  }
}

/** The exit code of an error that ended a command. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof ReportedError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.done : EXIT.usage;
  if (err instanceof ConfigError || err instanceof NoDatabaseError) return EXIT.usage;
  if (err instanceof InterruptedError) return EXIT.interrupted;
  return EXIT.failed;
}

/** Tells main that the command completed with some units or rows not done (exit 3) without throwing: its output was already printed. */
export function completedWithWarnings(): void {
  if ((process.exitCode ?? 0) === 0) process.exitCode = EXIT.incomplete;
}
