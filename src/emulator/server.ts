// The emulator's HTTP server: one node:http handler that routes, authenticates, applies rate-limit pools and injected
// faults, parses JSON bodies, and calls a route's handler — the same order the live service appears to follow.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PoolId } from '../api/endpoints.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import { SCIM_ERROR_SCHEMA } from '../api/types.js';
import { ConfigError } from '../errors.js';
import { READ_ROUTES } from './analytics/index.js';
import { Clock } from './clock.js';
import type { KeyFileEntry } from './credentials.js';
import { buildCredentials } from './credentials.js';
import type { FaultKind } from './fault-injector.js';
import { FAULT_KINDS, faultFor } from './fault-injector.js';
import type { PoolState } from './rate-limiter.js';
import { RateLimiter } from './rate-limiter.js';
import type { EmulatorResponse, Route } from './route.js';
import type { SeriesFault, SeriesFaultMode, SeriesFaultRecord } from './series-faults.js';
import { SERIES_FAULT_MODES, SeriesFaultInjector } from './series-faults.js';
import { RouteTable } from './route-table.js';
import type { Workspace } from './workspace.js';
import { generateWorkspace } from './workspace.js';
import type { CatalogueShape, IdStyle, WorkspaceSize } from './analytics/workspace-size.js';
import { ID_STYLES, MAX_OBJECTS } from './analytics/workspace-size.js';
import { WRITE_ROUTES } from './writes/index.js';

export interface EmulatorOptions {
  /** Seed of the generated workspace; same seed, same data and same demo key. @default 1 */
  seed?: number;
  /** ISO 8601 instant at which the emulator clock stands still. @default real time (the clock follows the machine) */
  now?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** Delay added before every answer, in milliseconds. @default 0 */
  latencyMs?: number;
  /** Probability in [0, 1] that a request gets an injected fault instead of its answer. @default 0 */
  faultRate?: number;
  /** Extra API keys, each with its own permissions. @default [] */
  keys?: KeyFileEntry[];
  /** Enforce the rate-limit pools of spec section 8 (headers are sent either way). @default true */
  rateLimits?: boolean;
  /** Multiplies every pool's limit (e.g. 0.001 makes 1,000/hour into 1/hour for tests). @default 1 */
  limitScale?: number;
  /** Multiplies every pool's window length. @default 1 */
  limitWindowScale?: number;
  /** Largest request body accepted; larger ones get 413. @default 1048576 (1 MiB) */
  maxBodyBytes?: number;
  /** Targeted faults in series answers (points dropped, a time repeated, a point outside the window). @default [] */
  seriesFaults?: SeriesFault[];
  /**
   * Time source of the rate-limit windows, in epoch milliseconds: a test shares its fake clock with the client's, so
   * windows pass without waiting for them.
   * @default Date.now
   */
  rateLimitNow?: () => number;
  /**
   * How many apps, products, segments, events, Canvases and campaigns the workspace lists (each one left out keeps the
   * seed's own count; see `SIZE_PRESETS` for named sizes).
   * @default the demo's counts
   */
  size?: WorkspaceSize;
  /** How the workspace's ids look: `demo` (`app_1`, `cv_3`) or `uuid` (as the platform issues them). @default "demo" */
  idStyle?: IdStyle;
}

export interface EmulatorStats {
  /** Every request received, answered or not. */
  requests: number;
  /** Requests routed to an endpoint, per limit pool. */
  byPool: Record<PoolId, number>;
  /** 429 answers caused by an exhausted pool (injected 429s are counted in `faults`). */
  rateLimited: number;
  /** Injected faults by kind. */
  faults: Record<FaultKind, number>;
  /** Series answers altered by a series fault, by mode. */
  seriesFaults: Record<SeriesFaultMode, number>;
}

export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  close(): Promise<void>;
  state: Workspace;
  clock: Clock;
  demoApiKey: string;
  scimToken: string;
  stats: EmulatorStats;
  /** Arm one more series fault (after the `seriesFaults` option's); throws ConfigError on a bad fault. */
  injectSeriesFault(fault: SeriesFault): void;
  /** Disarm every series fault: later answers are healthy. */
  clearSeriesFaults(): void;
  /** Every answer a series fault altered, oldest first: which points were dropped, repeated or added. */
  seriesFaultLog(): readonly SeriesFaultRecord[];
}

interface Normalized {
  seed: number;
  now: string | undefined;
  port: number;
  host: string;
  latencyMs: number;
  faultRate: number;
  keys: KeyFileEntry[];
  rateLimits: boolean;
  limitScale: number;
  limitWindowScale: number;
  maxBodyBytes: number;
  shape: CatalogueShape;
}

function normalize(opts: EmulatorOptions): Normalized {
  const where = (field: string) => `emulator option ${field}`;
  const int = (field: string, v: number | undefined, dflt: number, min: number, max: number): number => {
    const value = v ?? dflt;
    if (!Number.isInteger(value) || value < min || value > max)
      throw new ConfigError(where(field), `must be an integer from ${min} to ${max}, got ${String(value)}`);
    return value;
  };
  const positive = (field: string, v: number | undefined): number => {
    const value = v ?? 1;
    if (!Number.isFinite(value) || value <= 0)
      throw new ConfigError(where(field), `must be a number > 0, got ${String(value)}`);
    return value;
  };
  const faultRate = opts.faultRate ?? 0;
  if (!Number.isFinite(faultRate) || faultRate < 0 || faultRate > 1)
    throw new ConfigError(where('faultRate'), `must be a number from 0 to 1, got ${String(faultRate)}`);
  const latencyMs = opts.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0 || latencyMs > 60_000)
    throw new ConfigError(where('latencyMs'), `must be from 0 to 60000 milliseconds, got ${String(latencyMs)}`);
  return {
    seed: int('seed', opts.seed, 1, 0, 2 ** 32 - 1),
    now: opts.now,
    port: int('port', opts.port, 0, 0, 65_535),
    host: opts.host ?? '127.0.0.1',
    latencyMs,
    faultRate,
    keys: opts.keys ?? [],
    rateLimits: opts.rateLimits ?? true,
    limitScale: positive('limitScale', opts.limitScale),
    limitWindowScale: positive('limitWindowScale', opts.limitWindowScale),
    maxBodyBytes: int('maxBodyBytes', opts.maxBodyBytes, 1_048_576, 1, 2 ** 31 - 1),
    shape: normalizeShape(opts, where, int),
  };
}

function normalizeShape(
  opts: EmulatorOptions,
  where: (field: string) => string,
  int: (field: string, v: number | undefined, dflt: number, min: number, max: number) => number,
): CatalogueShape {
  const size: WorkspaceSize = {};
  const kinds: (keyof WorkspaceSize)[] = ['apps', 'products', 'segments', 'events', 'canvases', 'campaigns'];
  for (const kind of kinds) {
    const v = opts.size?.[kind];
    // At least one app and one event: every series endpoint needs something to count.
    if (v !== undefined)
      size[kind] = int(`size.${kind}`, v, 0, kind === 'apps' || kind === 'events' ? 1 : 0, MAX_OBJECTS);
  }
  const idStyle = opts.idStyle ?? 'demo';
  if (!ID_STYLES.includes(idStyle))
    throw new ConfigError(where('idStyle'), `must be one of ${ID_STYLES.join(', ')}, got ${JSON.stringify(idStyle)}`);
  return { size, idStyle };
}

/** Start an emulator of the whole REST interface on a real HTTP port. Close it with `close()`. */
export function createEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return createEmulatorWithRoutes([...READ_ROUTES, ...WRITE_ROUTES], opts);
}

/**
 * The server over a given route table. Not public: tests of the server's own behaviour (auth kinds, handler
 * failures) use it with small routes of their own.
 */
export async function createEmulatorWithRoutes(
  routes: readonly Route[],
  opts: EmulatorOptions = {},
): Promise<Emulator> {
  const o = normalize(opts);
  let clock: Clock;
  try {
    clock = new Clock(o.now);
  } catch {
    throw new ConfigError(
      'emulator option now',
      `"${o.now}" is not an ISO 8601 instant; write e.g. 2025-06-15T12:00:00Z`,
    );
  }
  const credentials = buildCredentials(o.seed, o.keys);
  const workspace = generateWorkspace({ seed: o.seed, shape: o.shape }, credentials);
  const table = new RouteTable(routes);
  const limitNow = opts.rateLimitNow ?? Date.now;
  const limiter = new RateLimiter({
    limitScale: o.limitScale,
    windowScale: o.limitWindowScale,
    enabled: o.rateLimits,
    now: limitNow,
  });
  const seriesFaults = new SeriesFaultInjector(o.seed, opts.seriesFaults ?? []);
  const stats: EmulatorStats = {
    requests: 0,
    byPool: Object.fromEntries(Object.keys(LIMIT_POOLS).map((k) => [k, 0])) as Record<PoolId, number>,
    rateLimited: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    seriesFaults: Object.fromEntries(SERIES_FAULT_MODES.map((k) => [k, 0])) as Record<SeriesFaultMode, number>,
  };
  const ctx = { workspace, clock };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // Only a failure to write (the client went away) lands here; there is nobody left to answer.
      if (!res.headersSent)
        send(res, 500, { message: `emulator failure: ${(err as Error).message}` }, limiter.peek('default'));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests += 1;
    const sequence = stats.requests;
    const raw = await readBody(req, o.maxBodyBytes);
    if (o.latencyMs > 0) await new Promise((r) => setTimeout(r, o.latencyMs));
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
    const method = (req.method ?? 'GET').toUpperCase();

    const match = table.match(method, path);
    if (match.kind === 'not_found' || match.kind === 'bad_path') {
      const message =
        match.kind === 'bad_path'
          ? match.reason
          : `No endpoint at ${path.slice(0, 200)}; see the spec's section 4 for the paths`;
      return send(res, 404, { message }, limiter.peek('default'));
    }
    const route = match.route;
    const pool = route.endpoint.pool;
    stats.byPool[pool] += 1;
    const scim = route.endpoint.credential === 'scim_token';
    const fail = (status: number, message: string, state: PoolState, headers: Record<string, string> = {}) =>
      send(res, status, scim ? { schemas: [SCIM_ERROR_SCHEMA], detail: message, status } : { message }, state, headers);

    if (match.kind === 'wrong_method') {
      return fail(
        405,
        `${method} is not allowed on ${route.endpoint.path}; use ${match.allowed.join(' or ')}`,
        limiter.peek(pool),
        { Allow: match.allowed.join(', ') },
      );
    }
    const denied = authorize(route, req);
    if (denied) return fail(denied.status, denied.message, limiter.peek(pool));

    const taken = limiter.take(pool);
    if (!taken.allowed) {
      stats.rateLimited += 1;
      const wait = Math.max(1, taken.state.resetEpochSeconds - Math.floor(limitNow() / 1000));
      return fail(429, 'API rate limit exceeded', taken.state, { 'Retry-After': String(wait) });
    }

    const fault = faultFor(o.seed, sequence, o.faultRate);
    if (fault) {
      stats.faults[fault] += 1;
      return injectFault(fault, res, taken.state, fail, limitNow);
    }

    if (raw.tooLarge)
      return fail(413, `Request body exceeds ${o.maxBodyBytes} bytes; send fewer items per request`, taken.state);
    let body: unknown;
    if (method !== 'GET' && raw.bytes.length > 0) {
      try {
        body = JSON.parse(raw.bytes.toString('utf8'));
      } catch (err) {
        return fail(
          400,
          `Request body is not valid JSON (${(err as Error).message}); send a JSON document with Content-Type: application/json`,
          taken.state,
        );
      }
    }

    let answer: EmulatorResponse;
    try {
      answer = route.handle({ method, path, params: match.params, query, body, headers: req.headers }, ctx);
    } catch (err) {
      // Never expected: every bad input must get a 4xx from the handler. The fuzz test keeps this path unused.
      return fail(500, `emulator bug in ${route.endpoint.name}: ${(err as Error).message}`, taken.state);
    }
    if (answer.status === 200) {
      const altered = seriesFaults.apply(sequence, route.endpoint, query, answer.body);
      if (altered) stats.seriesFaults[altered] += 1;
    }
    send(res, answer.status, answer.body, taken.state, answer.headers ?? {});
  }

  function authorize(route: Route, req: IncomingMessage): { status: number; message: string } | undefined {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (route.endpoint.credential === 'scim_token') {
      if (bearer !== credentials.scimToken)
        return { status: 401, message: 'Invalid SCIM token: send Authorization: Bearer <SCIM token>' };
      const origin = req.headers['x-request-origin'];
      if (typeof origin !== 'string' || origin.trim() === '')
        return { status: 400, message: 'Missing X-Request-Origin header: SCIM requests must name their origin' };
      return undefined;
    }
    // The live service echoes the key it refused; a secret never goes in a body here.
    const grant = bearer === undefined ? undefined : credentials.apiKeys.get(bearer);
    if (!grant) return { status: 401, message: 'Invalid API key' };
    const permission = route.endpoint.permission;
    if (permission !== undefined && !grant.permissions.has(permission)) {
      return {
        status: 403,
        message: `API key "${grant.name}" may not call ${route.endpoint.method} ${route.endpoint.path}: it requires the ${permission} permission`,
      };
    }
    return undefined;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    state: workspace,
    clock,
    demoApiKey: credentials.demoApiKey,
    scimToken: credentials.scimToken,
    stats,
    injectSeriesFault(fault) {
      seriesFaults.add(fault);
    },
    clearSeriesFaults() {
      seriesFaults.clear();
    },
    seriesFaultLog() {
      return [...seriesFaults.applied];
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Read the whole body; beyond `max` bytes keep draining (so the client can read our 413) but keep nothing. */
function readBody(req: IncomingMessage, max: number): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        tooLarge = true;
        chunks.length = 0;
      } else if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve({ bytes: Buffer.concat(chunks), tooLarge }));
    // An aborted upload still gets an answer attempt; the write simply fails if the socket is gone.
    req.on('error', () => resolve({ bytes: Buffer.alloc(0), tooLarge }));
  });
}

function rateHeaders(state: PoolState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.resetEpochSeconds),
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  state: PoolState,
  headers: Record<string, string> = {},
): void {
  // A 204 (SCIM delete) has no body at all.
  if (status === 204 || body === undefined) {
    res.writeHead(status, { ...headers, ...rateHeaders(state) });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...rateHeaders(state),
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** A body long enough that half of it is not valid JSON. */
const TRUNCATED_BODY = JSON.stringify({
  message: 'success',
  data: Array.from({ length: 20 }, (_, i) => ({ time: `fault-${i}`, value: i })),
});

function injectFault(
  fault: FaultKind,
  res: ServerResponse,
  state: PoolState,
  fail: (status: number, message: string, state: PoolState, headers?: Record<string, string>) => void,
  now: () => number,
): void {
  switch (fault) {
    case 'rate_limited': {
      const reset = Math.ceil(now() / 1000) + 1;
      fail(
        429,
        'API rate limit exceeded',
        { ...state, remaining: 0, resetEpochSeconds: reset },
        { 'Retry-After': '1' },
      );
      return;
    }
    case 'server_error':
      fail(500, 'Internal server error (injected fault)', state);
      return;
    case 'unavailable':
      fail(503, 'Service unavailable (injected fault)', state, { 'Retry-After': '1' });
      return;
    case 'truncated_body': {
      res.writeHead(200, {
        ...rateHeaders(state),
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(TRUNCATED_BODY)),
      });
      res.write(TRUNCATED_BODY.slice(0, Math.floor(TRUNCATED_BODY.length / 2)), () => res.socket?.destroy());
      return;
    }
    case 'connection_reset':
      res.socket?.destroy();
      return;
  }
}
