// How an ApiClient is configured, and the events it reports for progress bars and JSON-lines logs.
import type { HttpMethod, PoolId } from './endpoints.js';
import type { HttpTransport } from './http-transport.js';
import type { RequestScheduler } from './request-scheduler.js';

/** Reported as requests go; never carries a credential. */
export type ClientEvent =
  | {
      type: 'request-started';
      /** Endpoint name from the catalogue, e.g. `purchasesQuantitySeries`. */
      endpoint: string;
      method: HttpMethod;
      path: string;
      pool: PoolId;
      attempt: number;
    }
  | {
      type: 'request-finished';
      endpoint: string;
      method: HttpMethod;
      path: string;
      pool: PoolId;
      attempt: number;
      /** HTTP status; undefined when no response arrived (reset, timeout). */
      status: number | undefined;
      ms: number;
      /** Why the attempt failed, when it did (already free of credentials). */
      error?: string;
      /** The query string sent (`a=1&b=2`, credentials scrubbed); empty when there was none. */
      query: string;
      /** The response's `X-RateLimit-*` headers (lower-case names), when a response arrived. */
      rateLimit: Record<string, string>;
    }
  | {
      type: 'retry-scheduled';
      endpoint: string;
      method: HttpMethod;
      path: string;
      pool: PoolId;
      /** The attempt that failed. */
      attempt: number;
      reason: string;
      waitMs: number;
    };

/** Counters of one client's life, for the run log and the benchmark. */
export interface ClientStats {
  /** Requests put on the wire, retries included. */
  requestsSent: number;
  /** Retries scheduled. */
  retries: number;
  /** Total milliseconds slept between retries. */
  retryWaitMs: number;
  /** Attempts that got no response (connection reset, timeout, cut-short body). */
  transportErrors: number;
  /** Responses by HTTP status. */
  byStatus: Record<number, number>;
  /** Calls of `request()` that ended in success / in an error. */
  succeeded: number;
  failed: number;
}

export interface ApiClientOptions {
  /**
   * Base URL of the customer's instance. It may carry a path prefix (`http://host:4010/prefix`): every endpoint path and
   * every relative pagination link is appended to it, never replacing it.
   */
  baseUrl: string;
  /** REST API key, sent as `Authorization: Bearer <key>`. Never logged, never in an error. */
  apiKey: string;
  /**
   * SCIM token for `/scim/v2/Users` endpoints.
   * @default undefined (SCIM calls fail with a ConfigError)
   */
  scimToken?: string;
  /**
   * Value of `X-Request-Origin`, required by SCIM endpoints.
   * @default undefined (SCIM calls fail with a ConfigError)
   */
  requestOrigin?: string;
  /**
   * Time allowed for one attempt, response body included.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Attempts per request, the first one included.
   * @default 6
   */
  maxAttempts?: number;
  /**
   * Total milliseconds one request may spend waiting between its retries; a wait that would exceed it fails the request.
   * @default 120000
   */
  maxRetryWaitMs?: number;
  /**
   * Largest response body read, in bytes. A body announced (Content-Length) or streamed past it is cancelled and the
   * request fails at once, without a retry.
   * @default 67108864 (64 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Pages one paginated list (/events/list, /cdi/integrations) may have; a list still going at this page fails, naming
   * the endpoint and the page, instead of spending the pool's budget on a server that never ends it.
   * @default 500 (125,000 event names; half the hourly budget /events/list shares with the purchase series)
   */
  maxPages?: number;
  /**
   * How a give-up message tells the user to raise the retry limits: the knobs of the program using the client (the
   * `run` command names its pipeline-file fields; `push`, which has none, says to push again).
   * @default 'raise the client options maxAttempts / maxRetryWaitMs'
   */
  retryAdvice?: string;
  /**
   * First backoff delay after a failure without server advice; doubles each retry, with jitter (50–100 %).
   * @default 500
   */
  backoffBaseMs?: number;
  /**
   * Longest backoff delay between two attempts (server advice such as Retry-After is not capped).
   * @default 30000
   */
  backoffMaxMs?: number;
  /**
   * What admits each attempt: its limit pool's permit and its place in flight (src/api/request-scheduler.ts). A run makes
   * one and hands it over; a client given none makes its own with the spec's limits and closes it with itself.
   * @default RequestScheduler.create()
   */
  scheduler?: RequestScheduler;
  /**
   * Receives progress events.
   * @default undefined (no events)
   */
  onEvent?: (event: ClientEvent) => void;
  /**
   * How requests travel. `fetch` wraps a fetch function in one (tests that record or fail requests use it).
   * @default node:http and node:https with keep-alive agents (nodeHttpTransport)
   */
  transport?: HttpTransport;
  /**
   * A fetch function to send the requests with, instead of the default transport; ignored when `transport` is given.
   * @default undefined
   */
  fetch?: typeof fetch;
  /**
   * How the client waits between retries; tests inject a fake to keep long waits instant (the scheduler has its own).
   * @default a cancellable timer (node:timers/promises)
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The clock in epoch milliseconds, used to read Retry-After and X-RateLimit-Reset; inject with a fake `sleep`.
   * @default Date.now
   */
  now?: () => number;
}
