// What a caller of runPipeline may hand in besides the run's options.
import type { ApiClientOptions } from '../api/api-client-options.js';
import type { RunReporter } from './run-events.js';

export interface PipelineDeps {
  /** Where progress goes. @default SILENT_REPORTER */
  reporter?: RunReporter;
  /** Client settings beyond base URL and key (tests and the benchmark scale pools, in-flight caps, timeouts). @default {} */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey'>>;
  /**
   * What to call the source in the summary instead of its base URL (the CLI says "built-in emulator" for `--emulator`).
   * @default the base URL
   */
  sourceLabel?: string;
  /** Aborting it (Ctrl-C) stops the run like a fatal answer: what was fetched is committed, the run is logged 'interrupted'. @default none */
  signal?: AbortSignal;
}
