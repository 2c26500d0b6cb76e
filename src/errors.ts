// One base error for the whole tool. Every error says whether retrying can help, carries its context
// (endpoint, parameters, status, file, field — never a credential), and reads as "what failed, the values, how to fix".

/** Base of every error engage-etl raises on purpose. */
export class EngageError extends Error {
  /** True when the same operation may succeed if tried again (network fault, 429, 5xx). */
  readonly retriable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngageError';
  }
}

/** A failure that may pass: retried within the bounds of the retry policy. */
export class RetriableError extends EngageError {
  override readonly retriable = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetriableError';
  }
}

/** A failure that retrying cannot fix: stops retries at once. */
export class FatalError extends EngageError {
  override readonly retriable = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FatalError';
  }
}

/**
 * A paginated list that cannot be read to its end: it loops (a page of items already seen) or passes the page cap. The
 * list's trouble, not the run's: only the streams that need the list fail.
 */
export class UnreadableListError extends FatalError {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableListError';
  }
}

/** Bad user input: a pipeline file, a flag, an environment variable. `where` names the file and field or the flag. */
export class ConfigError extends FatalError {
  readonly where: string;

  constructor(where: string, message: string, options?: { cause?: unknown }) {
    super(`${where}: ${message}`, options);
    this.name = 'ConfigError';
    this.where = where;
  }
}

/** Context of an HTTP request, as safe to print: no credential ever goes in here. */
export interface RequestContext {
  method: string;
  /** Endpoint path without the base URL, e.g. `/purchases/quantity_series`. */
  endpoint: string;
  /** Query or body parameters that identify the request (never headers). */
  params?: Record<string, unknown>;
}

function describe(ctx: RequestContext): string {
  const params = ctx.params && Object.keys(ctx.params).length > 0 ? ` ${JSON.stringify(ctx.params)}` : '';
  return `${ctx.method} ${ctx.endpoint}${params}`;
}

/** The API answered with a status that retrying may fix (429, 5xx) or the transport failed (reset, timeout, truncated body). */
export class RetriableApiError extends RetriableError {
  readonly context: RequestContext;
  readonly status: number | undefined;
  /** Milliseconds the server asked us to wait (Retry-After or X-RateLimit-Reset), when it said. */
  readonly retryAfterMs: number | undefined;
  /** What went wrong, without the request (the message is the request, then this). */
  readonly reason: string;

  constructor(
    ctx: RequestContext,
    reason: string,
    opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`${describe(ctx)} failed${opts.status ? ` with ${opts.status}` : ''}: ${reason}`, { cause: opts.cause });
    this.name = 'RetriableApiError';
    this.reason = reason;
    this.context = ctx;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** The API refused the request for a reason retrying cannot fix (400, 401, 403, 404, a body whose message is not success). */
export class FatalApiError extends FatalError {
  readonly context: RequestContext;
  readonly status: number | undefined;
  /** The parsed response body, when there was one (already scrubbed of credentials). */
  readonly body: unknown;
  /** What went wrong, without the request (the message is the request, then this). */
  readonly reason: string;

  constructor(ctx: RequestContext, reason: string, opts: { status?: number; body?: unknown; cause?: unknown } = {}) {
    super(`${describe(ctx)} failed${opts.status ? ` with ${opts.status}` : ''}: ${reason}`, { cause: opts.cause });
    this.name = 'FatalApiError';
    this.reason = reason;
    this.context = ctx;
    this.status = opts.status;
    this.body = opts.body;
  }
}

/** Another `run` holds the database. */
export class LockedError extends FatalError {
  constructor(message: string) {
    super(message);
    this.name = 'LockedError';
  }
}

/** No database has been published at `--db` yet (`plan` then plans from nothing; `query` and `status` say so). */
export class NoSnapshotError extends FatalError {
  constructor(message: string) {
    super(message);
    this.name = 'NoSnapshotError';
  }
}

/**
 * `--db` names nothing: no database file (nor working copy) at that path, no object at that key. A usage error (exit 2),
 * raised before anything is created or deleted, so a typo never becomes an empty warehouse published over the lake.
 */
export class NoDatabaseError extends NoSnapshotError {
  constructor(message: string) {
    super(message);
    this.name = 'NoDatabaseError';
  }
}

/** The user stopped the command (Ctrl-C / SIGTERM); what was committed before is kept. */
export class InterruptedError extends FatalError {
  /** False when what the run committed could not be kept for the next run (a checkpoint upload failed): the message says what is lost. */
  readonly progressKept: boolean;
  constructor(message: string, options?: { cause?: unknown; progressKept?: boolean }) {
    super(message, options);
    this.name = 'InterruptedError';
    this.progressKept = options?.progressKept ?? true;
  }
}
