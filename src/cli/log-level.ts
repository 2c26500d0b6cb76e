// How loud a run is on stderr: the level of each event, and `--log-level` / `--quiet` / `--verbose` resolved into one.
import { ConfigError } from '../errors.js';
import type { RunEvent } from '../pipeline/run-events.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every event a reporter may receive. */
export type ReportedEvent = RunEvent;

/** The level an event is logged at: a request is debug detail, a warning a warning, a failed run an error. */
export function levelOf(event: ReportedEvent): LogLevel {
  switch (event.type) {
    case 'request':
      return 'debug';
    case 'warning':
      return 'warn';
    case 'run_finished':
      return event.status === 'failed' ? 'error' : event.status === 'interrupted' ? 'warn' : 'info';
    default:
      return 'info';
  }
}

/** True when an event of `level` is shown at the chosen `threshold`. */
export function shows(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

/** `--quiet` is `--log-level error` (a cron job mails only failures), `--verbose` is `--log-level debug`. */
export function resolveLogLevel(flags: { logLevel?: string; quiet?: boolean; verbose?: boolean }): LogLevel {
  const chosen = [
    flags.logLevel !== undefined && '--log-level',
    flags.quiet && '--quiet',
    flags.verbose && '--verbose',
  ].filter(Boolean);
  if (chosen.length > 1)
    throw new ConfigError(chosen.join(' and '), 'choose one of --log-level, --quiet and --verbose');
  if (flags.quiet) return 'error';
  if (flags.verbose) return 'debug';
  if (flags.logLevel === undefined) return 'info';
  const level = flags.logLevel.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(
      '--log-level',
      `${JSON.stringify(flags.logLevel)} is not a level; use one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  return level as LogLevel;
}
