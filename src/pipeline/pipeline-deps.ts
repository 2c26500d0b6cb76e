// What a caller of runPipeline may hand in besides the run's options.
import type { ApiClientOptions } from '../api/api-client-options.js';
import type { RequestSchedulerOptions } from '../api/request-scheduler.js';
import type { RunReporter } from './run-events.js';

export interface PipelineDeps {
  /** Where progress goes. @default SILENT_REPORTER */
  reporter?: RunReporter;
  /** Client settings beyond base URL and key (timeouts, retries, a fetch, events). @default {} */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey' | 'scheduler'>>;
  /**
   * Settings of the run's scheduler (tests and the benchmark scale pools down and put them on a virtual clock);
   * `--max-wait` and `--max-in-flight` win over these. `onWait` hears each announced wait besides the reporter.
   * @default {}
   */
  scheduler?: RequestSchedulerOptions;
  /**
   * What to call the source in the summary instead of its base URL (the CLI says "built-in emulator" for `--emulator`).
   * @default the base URL
   */
  sourceLabel?: string;
  /** Aborting it (Ctrl-C) stops the run like a fatal answer: what was fetched is committed, the run is logged 'interrupted'. @default none */
  signal?: AbortSignal;
}
