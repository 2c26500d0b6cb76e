// The error of a run that published but had series failing for good: it carries the run's summary for the CLI.
import { FatalError } from '../errors.js';
import type { RunSummary } from './run-summary.js';

/**
 * Some series failed in a way running again cannot fix (a 4xx, an unknown id, a body that does not match); everything
 * else was committed and published. Carries the run's summary (status `failed`, `failedSeries`), which the CLI prints as
 * it prints a successful run's.
 */
export class StreamsFailedError extends FatalError {
  readonly summary: RunSummary;

  constructor(message: string, summary: RunSummary) {
    super(message);
    this.name = 'StreamsFailedError';
    this.summary = summary;
  }
}
