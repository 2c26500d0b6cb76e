// The typed HTTP client of the platform: authentication, retries with backoff (p-retry) that honour the server's advice,
// and errors that say what failed without ever showing a credential. Each attempt waits for the scheduler it was given
// (its pool's permit and a place in flight) and tells it what the answer said.
import { setMaxListeners } from 'node:events';
import pRetry, { AbortError } from 'p-retry';
import type { ApiCall, ApiResponse, QueryValue } from './api-call.js';
import type { ApiClientOptions, ClientEvent, ClientStats } from './api-client-options.js';
import { credentialProblem } from './credential-rules.js';
import type { EndpointSpec, PoolId } from './endpoints.js';
import { normalizeBaseUrl } from './base-url.js';
import { fillPath } from './endpoint-path.js';
import { expectSuccess } from './expect-success.js';
import { describeMs, type PoolPermit, type ReleaseOutcome } from './limit-pool.js';
import { quoteHeaders, readRateLimitAdvice, readRetryAfterMs } from './rate-limit-headers.js';
import { fetchTransport } from './fetch-transport.js';
import { type HttpTransport, type ResponseHeaders, TransportError, type TransportResponse } from './http-transport.js';
import { nodeHttpTransport } from './node-http-transport.js';
import { RequestScheduler } from './request-scheduler.js';
import { isRecord } from './response-shape.js';
import { SecretScrubber } from './secret-scrubber.js';
import { showUrl } from './show-url.js';
import { sleep as defaultSleep } from './sleep.js';
import { ConfigError, FatalApiError, FatalError, RetriableApiError, type RequestContext } from '../errors.js';

/** A request made ready to send: everything but the attempt. */
interface PreparedCall {
  endpoint: EndpointSpec;
  method: EndpointSpec['method'];
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  ctx: RequestContext;
  checkMessage: boolean;
  resendCutShort: boolean;
  scim: boolean;
  /** The URL's query string for events, credentials scrubbed. */
  query: string;
}

/** 64 MiB: the largest real answer (a year of hourly series) is a few MB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * 500 pages: 125,000 event names at 250 a page, far past any workspace's catalogue, yet half of the 1,000 requests an
 * hour that /events/list shares with the purchase series, so a list that never ends cannot starve them.
 */
export const DEFAULT_MAX_PAGES = 500;

// Server text quoted in an error is cut here: enough to read the reason, not a whole HTML error page.
const MAX_QUOTED_CHARS = 300;

/** The platform's REST client. One per run; `close()` it in a `finally`. */
export class ApiClient {
  /** Base URL without a trailing slash, path prefix kept (`http://host/prefix`). */
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #scimToken: string | undefined;
  readonly #requestOrigin: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #maxRetryWaitMs: number;
  readonly #retryAdvice: string;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #maxBodyBytes: number;
  /** Pages a paginated list may have before it is taken for a loop; read by the paginators. */
  readonly maxPages: number;
  readonly #scheduler: RequestScheduler;
  // A scheduler the client made for itself (none was given) is closed with it.
  readonly #ownsScheduler: boolean;
  readonly #transport: HttpTransport;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #onEvent: ((event: ClientEvent) => void) | undefined;
  readonly #scrubber: SecretScrubber;
  readonly #closing = new AbortController();
  readonly #stats: ClientStats = {
    requestsSent: 0,
    retries: 0,
    retryWaitMs: 0,
    transportErrors: 0,
    byStatus: {},
    succeeded: 0,
    failed: 0,
  };

  private constructor(opts: ApiClientOptions) {
    this.baseUrl = clientBaseUrl(opts.baseUrl);
    if (typeof opts.apiKey !== 'string' || opts.apiKey.trim() === '') {
      throw new ConfigError(
        'apiKey',
        'the REST API key is empty; pass the key of the workspace (it needs the permissions of the endpoints you call)',
      );
    }
    // A key fetch cannot put in a header would fail every attempt as a "connection failure"; a short one is a placeholder.
    const keyProblem = credentialProblem(opts.apiKey);
    if (keyProblem) throw new ConfigError('apiKey', `the REST API key ${keyProblem}`);
    const tokenProblem = opts.scimToken === undefined ? undefined : credentialProblem(opts.scimToken);
    if (tokenProblem) throw new ConfigError('scimToken', `the SCIM token ${tokenProblem}`);
    this.#apiKey = opts.apiKey;
    this.#scimToken = opts.scimToken;
    this.#requestOrigin = opts.requestOrigin;
    this.#timeoutMs = positive('timeoutMs', opts.timeoutMs ?? 30_000, false);
    this.#maxAttempts = positive('maxAttempts', opts.maxAttempts ?? 6, true);
    this.#maxRetryWaitMs = nonNegative('maxRetryWaitMs', opts.maxRetryWaitMs ?? 120_000);
    this.#retryAdvice = opts.retryAdvice ?? 'raise the client options maxAttempts / maxRetryWaitMs';
    this.#backoffBaseMs = nonNegative('backoffBaseMs', opts.backoffBaseMs ?? 500);
    this.#backoffMaxMs = nonNegative('backoffMaxMs', opts.backoffMaxMs ?? 30_000);
    this.#maxBodyBytes = positive('maxBodyBytes', opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, true);
    this.maxPages = positive('maxPages', opts.maxPages ?? DEFAULT_MAX_PAGES, true);
    this.#transport = opts.transport ?? (opts.fetch ? fetchTransport(opts.fetch) : nodeHttpTransport());
    this.#sleep = opts.sleep ?? defaultSleep;
    this.#now = opts.now ?? Date.now;
    this.#onEvent = opts.onEvent;
    this.#scrubber = new SecretScrubber([opts.apiKey, opts.scimToken]);
    this.#ownsScheduler = opts.scheduler === undefined;
    this.#scheduler = opts.scheduler ?? RequestScheduler.create();
    // The pools' queues and every retry's wait listen on the closing signal; more than Node's default 10 is normal.
    setMaxListeners(0, this.#closing.signal);
  }

  /** Validates the options (ConfigError naming the option) and builds a client. Opens no connection. */
  static create(opts: ApiClientOptions): ApiClient {
    return new ApiClient(opts);
  }

  /** A copy of the counters so far. */
  get stats(): ClientStats {
    return { ...this.#stats, byStatus: { ...this.#stats.byStatus } };
  }

  /**
   * Sends one call once the scheduler admits it (its pool's budget and pace, a place in flight), retrying 429, 5xx and
   * transport failures.
   * Resolves with the parsed 2xx body; rejects with FatalApiError (4xx, refusal in `message`), RetriableApiError
   * (retries exhausted) or ConfigError (missing path parameter or SCIM credential).
   */
  async request<T>(call: ApiCall): Promise<ApiResponse<T>> {
    if (this.#closing.signal.aborted)
      throw new FatalError(`${call.endpoint.method} ${call.endpoint.path}: the API client is closed; create a new one`);
    const prepared = this.#prepare(call);
    let waited = 0;
    let attempts = 0;
    try {
      const response = await pRetry(
        async (attempt: number) => {
          attempts = attempt;
          return this.#attempt<T>(prepared, attempt);
        },
        {
          retries: this.#maxAttempts - 1,
          // p-retry decides whether to retry; the waiting is ours (server advice, injectable sleep, budget).
          minTimeout: 0,
          shouldRetry: async ({ error, attemptNumber }) => {
            if (!(error instanceof RetriableApiError)) return false;
            const wait = this.#retryWait(error, attemptNumber, waited, prepared.endpoint.pool);
            if (wait === undefined) throw this.#budgetExhausted(prepared, error, attemptNumber, waited);
            waited += wait;
            this.#stats.retries++;
            this.#stats.retryWaitMs += wait;
            this.#emit({
              type: 'retry-scheduled',
              ...eventBase(prepared),
              attempt: attemptNumber,
              reason: reasonOf(error),
              waitMs: wait,
            });
            await this.#sleep(wait, this.#closing.signal);
            return true;
          },
        },
      );
      this.#stats.succeeded++;
      return response;
    } catch (error) {
      this.#stats.failed++;
      if (error instanceof RetriableApiError && !GAVE_UP.has(error) && attempts >= this.#maxAttempts) {
        const why =
          attempts === 1 ? 'the only attempt allowed failed' : `all ${attempts} attempts failed (the most allowed)`;
        throw this.#giveUp(prepared, error, why);
      }
      if (this.#closing.signal.aborted && !(error instanceof FatalApiError || error instanceof RetriableApiError)) {
        const what =
          error instanceof FatalError ? error.message : 'the API client was closed before the request completed';
        throw new FatalError(`${describeCall(prepared)}: ${what}`, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Cancels in-flight attempts and takes its waiting requests out of the scheduler (rejected, nothing sent); closes the
   * scheduler only if the client made it. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new FatalError('the API client was closed'));
    this.#transport.close();
    if (this.#ownsScheduler) this.#scheduler.close();
  }

  #prepare(call: ApiCall): PreparedCall {
    const { endpoint } = call;
    const scim = call.credential === 'scim' || endpoint.credential === 'scim_token';
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (scim) {
      if (!this.#scimToken)
        throw new ConfigError(
          'scimToken',
          `${endpoint.method} ${endpoint.path} needs a SCIM token; pass scimToken to the client`,
        );
      if (!this.#requestOrigin) {
        throw new ConfigError(
          'requestOrigin',
          `${endpoint.method} ${endpoint.path} needs the X-Request-Origin header; pass requestOrigin to the client`,
        );
      }
      headers.Authorization = `Bearer ${this.#scimToken}`;
      headers['X-Request-Origin'] = this.#requestOrigin;
    } else {
      headers.Authorization = `Bearer ${this.#apiKey}`;
    }
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    Object.assign(headers, call.headers);

    const path = fillPath(endpoint, call.pathParams ?? {});
    let url: string;
    const params: Record<string, unknown> = { ...call.pathParams };
    if (call.url !== undefined) {
      url = call.url;
      for (const [key, value] of new URL(url).searchParams) params[key] = value;
    } else {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(call.query ?? {})) {
        if (value === undefined) continue;
        search.append(key, queryText(value));
        params[key] = value;
      }
      const qs = search.toString();
      url = `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
    }
    if (isRecord(call.body)) params.body = `{${Object.keys(call.body).join(', ')}}`;
    return {
      endpoint,
      method: endpoint.method,
      url,
      headers,
      body,
      ctx: {
        method: endpoint.method,
        endpoint: path,
        params: JSON.parse(this.#scrubber.scrub(JSON.stringify(params))) as Record<string, unknown>,
      },
      query: this.#scrubber.scrub(new URL(url).search.slice(1)),
      checkMessage: call.checkMessage ?? true,
      resendCutShort: call.resendAfterCutShortSuccess ?? true,
      scim,
    };
  }

  async #attempt<T>(p: PreparedCall, attempt: number): Promise<ApiResponse<T>> {
    const permit = await this.#scheduler.admit(p.endpoint.pool, this.#closing.signal);
    let outcome: ReleaseOutcome = 'ok';
    try {
      return await this.#send<T>(p, attempt, permit);
    } catch (error) {
      // A 429, a 5xx or no answer at all: the pool keeps fewer requests in flight for a while.
      if (error instanceof RetriableApiError) outcome = NOT_SENT.has(error) ? 'not-sent' : 'overloaded';
      throw error;
    } finally {
      permit.release(outcome);
    }
  }

  async #send<T>(p: PreparedCall, attempt: number, permit: PoolPermit): Promise<ApiResponse<T>> {
    const base = eventBase(p);
    this.#emit({ type: 'request-started', ...base, attempt });
    const started = performance.now();
    let rateLimit: Record<string, string> = {};
    const finished = (status: number | undefined, error?: unknown): void => {
      const ms = Math.round(performance.now() - started);
      const event: ClientEvent =
        error === undefined
          ? { type: 'request-finished', ...base, attempt, status, ms, query: p.query, rateLimit }
          : {
              type: 'request-finished',
              ...base,
              attempt,
              status,
              ms,
              query: p.query,
              rateLimit,
              error: error instanceof Error ? reasonOf(error) : String(error),
            };
      this.#emit(event);
    };
    this.#stats.requestsSent++;

    let response: TransportResponse;
    let text: string;
    try {
      response = await this.#transport.send({
        url: p.url,
        method: p.method,
        headers: p.headers,
        body: p.body,
        timeoutMs: this.#timeoutMs,
      });
    } catch (error) {
      const failure = this.#transportFailure(p, error, 'no response');
      if (error instanceof TransportError && error.failure === 'not-connected') NOT_SENT.add(failure);
      finished(undefined, failure);
      throw failure;
    }
    rateLimit = rateLimitHeaders(response.headers);
    try {
      const read = await response.read(this.#maxBodyBytes);
      if ('tooLarge' in read) {
        this.#stats.byStatus[response.status] = (this.#stats.byStatus[response.status] ?? 0) + 1;
        this.#scheduler.observe(permit, readRateLimitAdvice(response.headers, this.#now()));
        const { declared, readBytes } = read.tooLarge;
        const size =
          declared !== undefined
            ? `announces ${declared} bytes (Content-Length)`
            : `passed ${readBytes} bytes while streaming`;
        const failure = new FatalApiError(
          p.ctx,
          `the ${response.status} response body ${size}, over maxBodyBytes=${this.#maxBodyBytes}; refused without reading the rest and not retried — no real answer is that large, so check the base URL, or raise maxBodyBytes if it is genuine`,
          { status: response.status },
        );
        finished(response.status, failure);
        throw new AbortError(failure);
      }
      text = read.text;
    } catch (error) {
      if (error instanceof AbortError) throw error;
      if (!p.resendCutShort && response.status >= 200 && response.status < 300 && !this.#closing.signal.aborted) {
        this.#stats.byStatus[response.status] = (this.#stats.byStatus[response.status] ?? 0) + 1;
        this.#scheduler.observe(permit, readRateLimitAdvice(response.headers, this.#now()));
        finished(response.status);
        return {
          status: response.status,
          headers: response.headers,
          body: undefined as T,
          url: p.url,
          attempts: attempt,
        };
      }
      const failure = this.#transportFailure(p, error, `the ${response.status} response body was cut short`);
      this.#scheduler.observe(permit, readRateLimitAdvice(response.headers, this.#now()));
      finished(response.status, failure);
      throw failure;
    }
    const now = this.#now();
    this.#stats.byStatus[response.status] = (this.#stats.byStatus[response.status] ?? 0) + 1;
    this.#scheduler.observe(permit, readRateLimitAdvice(response.headers, now));
    const clean = this.#scrubber.scrub(text);

    try {
      const body = this.#interpret<T>(p, response, clean, now);
      finished(response.status);
      return { status: response.status, headers: response.headers, body, url: p.url, attempts: attempt };
    } catch (error) {
      finished(response.status, error);
      throw error instanceof FatalError ? new AbortError(error) : error;
    }
  }

  /** Turns a complete response into a body or the right error. */
  #interpret<T>(p: PreparedCall, response: TransportResponse, text: string, now: number): T {
    const { status } = response;
    if (status === 429 || status >= 500) {
      // X-RateLimit-Reset is the end of the pool's window: advice for a 429, not for a 5xx (which would then wait up to an
      // hour, past the retry budget, for a fault that a short backoff cures).
      const retryAfterMs = readRetryAfterMs(response.headers, now, status === 429);
      if (status === 429 && retryAfterMs !== undefined) {
        this.#scheduler.blockUntil(
          p.endpoint.pool,
          now + retryAfterMs,
          quoteHeaders(response.headers, ['Retry-After', 'X-RateLimit-Reset']),
        );
      }
      const said = serverSays(parseJson(text), text);
      const advice =
        status === 429
          ? quoteHeaders(response.headers, ['Retry-After', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
          : undefined;
      const reason =
        status === 429
          ? `rate limited by the server (limit pool "${p.endpoint.pool}"${advice ? `; ${advice}` : ''})`
          : 'server error';
      throw new RetriableApiError(
        p.ctx,
        `${reason}${said ? `: ${said}` : ''}`,
        retryAfterMs === undefined ? { status } : { status, retryAfterMs },
      );
    }
    if (status >= 200 && status < 300) {
      if (text.trim() === '') return undefined as T;
      const body = parseJson(text);
      const notJson = notJsonAnswer(response.headers.get('content-type'), text, body !== NOT_JSON);
      if (notJson) {
        throw new FatalApiError(
          p.ctx,
          `the server answered ${notJson} to ${p.method} ${p.ctx.endpoint} — is the base URL right? It must be the REST address of the instance (e.g. https://rest.example.com), not a dashboard or proxy page: ${quote(text)}`,
          { status },
        );
      }
      if (body === NOT_JSON) {
        if (!p.resendCutShort) return undefined as T;
        throw new RetriableApiError(
          p.ctx,
          `the ${status} response body is not complete JSON (truncated?): ${quote(text)}`,
          { status },
        );
      }
      if (p.checkMessage) expectSuccess(body, p.ctx, status);
      return body as T;
    }
    const body = parseJson(text);
    const said = serverSays(body, text);
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location');
      throw new FatalApiError(
        p.ctx,
        `the server redirected${location ? ` to ${location}` : ''}; set baseUrl to the final address (redirects are not followed so the credential is never sent elsewhere)`,
        { status },
      );
    }
    const advice = this.#advice(p, status);
    throw new FatalApiError(p.ctx, said ? `${said} — ${advice}` : advice, {
      status,
      body: body === NOT_JSON ? text : body,
    });
  }

  #advice(p: PreparedCall, status: number): string {
    if (status === 401 || status === 403) {
      return p.scim
        ? 'check the SCIM token and the X-Request-Origin value'
        : `check the API key and its permissions (${p.endpoint.permission ?? 'none named'})`;
    }
    if (status === 404) return 'check the identifiers in the path and query (the resource or route does not exist)';
    if (status === 413) return 'the request body is too large; send fewer items per request';
    return 'check the parameters against the API spec';
  }

  #transportFailure(p: PreparedCall, error: unknown, what: string): Error {
    if (this.#closing.signal.aborted || (error instanceof TransportError && error.failure === 'closed')) {
      return new AbortError(
        new FatalError('the API client was closed while the request was in flight', { cause: error }),
      );
    }
    this.#stats.transportErrors++;
    if (error instanceof TransportError && error.failure === 'timeout')
      return new RetriableApiError(p.ctx, `${what} within timeoutMs=${this.#timeoutMs} ms`);
    const detail = error instanceof TransportError ? (error.code ?? error.message) : String(error);
    return new RetriableApiError(p.ctx, `${what} (connection failed: ${this.#scrubber.scrub(String(detail))})`);
  }

  /**
   * Wait before the next attempt, or undefined when it does not fit the budget: `maxRetryWaitMs`, or for a 429's own
   * advice the pool's `--max-wait` when that is longer (a server asking for a ten-minute pause is obeyed, not given up on).
   */
  #retryWait(error: RetriableApiError, attempt: number, waited: number, pool: PoolId): number | undefined {
    const advised = error.status === 429 && error.retryAfterMs !== undefined;
    const left =
      (advised ? Math.max(this.#maxRetryWaitMs, this.#scheduler.maxWaitMs(pool)) : this.#maxRetryWaitMs) - waited;
    const backoff = Math.min(this.#backoffMaxMs, this.#backoffBaseMs * 2 ** (attempt - 1));
    // Jitter spreads the retries of concurrent requests so they do not hit the server in lockstep.
    const jittered = Math.round(backoff * (0.5 + Math.random() * 0.5));
    if (error.retryAfterMs !== undefined) {
      // The first retry obeys the server exactly; later ones never go faster than backoff, so a reset time in the
      // past (clock skew, a reset rounded down to the second) cannot burn every attempt within milliseconds.
      const wait = attempt === 1 ? error.retryAfterMs : Math.max(error.retryAfterMs, jittered);
      return wait <= left ? wait : undefined;
    }
    if (left <= 0 && jittered > 0) return undefined;
    return Math.min(jittered, left);
  }

  #budgetExhausted(p: PreparedCall, error: RetriableApiError, attempts: number, waited: number): RetriableApiError {
    const asked = error.retryAfterMs !== undefined ? `the server asked to wait ${error.retryAfterMs} ms, ` : '';
    const maxWait =
      error.status === 429 && error.retryAfterMs !== undefined
        ? `; a 429's advice may use up to --max-wait, ${describeMs(this.#scheduler.maxWaitMs(p.endpoint.pool))}`
        : '';
    return this.#giveUp(
      p,
      error,
      `${attempts} attempt${attempts === 1 ? '' : 's'} made; ${asked}which would exceed the retry wait budget of ${this.#maxRetryWaitMs} ms (${waited} ms already waited${maxWait})`,
    );
  }

  #giveUp(p: PreparedCall, last: RetriableApiError, why: string): RetriableApiError {
    const error = new RetriableApiError(
      p.ctx,
      `gave up: ${why}; last failure: ${reasonOf(last)}. The service may be down or limiting this key — retry later, or ${this.#retryAdvice}`,
      { status: last.status, retryAfterMs: last.retryAfterMs, cause: last },
    );
    GAVE_UP.add(error);
    return error;
  }

  #emit(event: ClientEvent): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent(event);
    } catch {
      // A broken progress reporter must not fail an export; events are advisory.
    }
  }
}

// Final errors already carrying the attempt count, so the outer catch does not wrap them twice.
const GAVE_UP = new WeakSet<Error>();

/** Failures of attempts that never reached the server: their pool does not count them (see PoolPermit.release). */
const NOT_SENT = new WeakSet<Error>();

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** The server's own words: `message`, SCIM `detail`, or catalog `errors[].message`, quoted; else the raw text. */
function serverSays(body: unknown, text: string): string {
  if (isRecord(body)) {
    const parts: string[] = [];
    if (typeof body.message === 'string') parts.push(`"${body.message}"`);
    if (typeof body.detail === 'string') parts.push(`"${body.detail}"`);
    if (Array.isArray(body.errors)) {
      for (const e of body.errors.slice(0, 5)) {
        if (isRecord(e) && typeof e.message === 'string')
          parts.push(`${typeof e.id === 'string' ? `${e.id}: ` : ''}"${e.message}"`);
      }
    }
    if (parts.length > 0) return `server said ${parts.join('; ')}`;
  }
  return text.trim() === '' ? '' : `server said ${quote(text)}`;
}

/**
 * Names a 2xx answer that is not JSON (`HTML (text/html)`, `text/plain, not JSON`), or undefined when it may be JSON.
 * A missing Content-Type is accepted (independent servers omit it), and so is a wrong one over a body that parses.
 */
function notJsonAnswer(contentType: string | null, text: string, parses: boolean): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const looksHtml = /^\s*<(!doctype|html|head|body|\?xml)/i.test(text);
  if (type === 'text/html' || type === 'application/xhtml+xml') return `HTML (${type})`;
  if (type === '' || /^(application|text)\/(x-)?json$/.test(type) || type.endsWith('+json')) {
    return looksHtml && !parses ? `HTML${type === '' ? ' (no Content-Type)' : ` under ${type}`}` : undefined;
  }
  return parses ? undefined : `${type}, not JSON`;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > MAX_QUOTED_CHARS ? `${flat.slice(0, MAX_QUOTED_CHARS)}…` : flat);
}

/** Events want the reason alone, without the request the message starts with. */
function reasonOf(error: Error): string {
  return error instanceof RetriableApiError || error instanceof FatalApiError ? error.reason : error.message;
}

function describeCall(p: PreparedCall): string {
  return `${p.method} ${p.ctx.endpoint}`;
}

/** The `X-RateLimit-*` headers of a response, for request-level debugging of a real account. */
function rateLimitHeaders(headers: ResponseHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.toLowerCase().startsWith('x-ratelimit-')) out[name.toLowerCase()] = value;
  });
  return out;
}

function eventBase(p: PreparedCall): { endpoint: string; method: EndpointSpec['method']; path: string; pool: PoolId } {
  return { endpoint: p.endpoint.name, method: p.method, path: p.ctx.endpoint, pool: p.endpoint.pool };
}

function queryText(value: Exclude<QueryValue, undefined>): string {
  return typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value);
}

/** The base URL by the one rule (src/api/base-url.ts), refused as a ConfigError naming the option. */
function clientBaseUrl(raw: string): string {
  const checked = normalizeBaseUrl(raw);
  if (!checked.ok)
    throw new ConfigError(
      'baseUrl',
      `${showUrl(raw)} ${checked.reason}; give the instance address, e.g. https://rest.example.com or http://127.0.0.1:4010`,
    );
  return checked.url;
}

function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigError(name, `must be a ${integer ? 'whole number' : 'number'} > 0, got ${String(value)}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(name, `must be a number ≥ 0, got ${String(value)}`);
  return value;
}
