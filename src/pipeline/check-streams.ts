// `engage-etl check`: a few cheap requests per stream of a pipeline, with the key and base URL of a run, telling per
// stream whether it is reachable and the key holds the permissions it needs — before a nightly run finds out at 03:00.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec, PoolId } from '../api/endpoints.js';
import { parseResetValue } from '../api/rate-limit-headers.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { FatalApiError, RetriableApiError } from '../errors.js';
import { streamDeclaration } from '../streams/registry.js';
import { endpointsOf } from './stream-endpoints.js';
import { probeEndpoint, probeStream } from './stream-probes.js';

export type CheckOutcome = 'ok' | 'missing_permission' | 'unauthorized' | 'unreachable' | 'error';

export interface StreamCheck {
  stream: StreamName;
  /** `GET /purchases/revenue_series`: the endpoint that failed, or the stream's first. */
  endpoint: string;
  /** The permission of that endpoint: the one missing when the outcome is `missing_permission`. */
  permission: string;
  /** Every permission the stream needs with the pipeline's options (a list for `all`, reconciliation…). */
  permissions: string[];
  pool: PoolId;
  outcome: CheckOutcome;
  status: number | null;
  /** What went wrong, credentials scrubbed; null when the stream is fine. */
  error: string | null;
}

/** What the server says is left of a pool's budget (`X-RateLimit-*` of the last answer from that pool). */
export interface PoolHeadroom {
  pool: PoolId;
  limit: number | null;
  remaining: number | null;
  /** ISO 8601 instant the window resets, when the server said. */
  resetsAt: string | null;
}

export interface CheckReport {
  streams: StreamCheck[];
  headroom: PoolHeadroom[];
  ok: boolean;
}

/** Sends each stream's probe through `client` and classifies the answers; every stream gets its outcome, none throws. */
export async function checkStreams(
  client: ApiClient,
  pipeline: PipelineDefinition,
  streams: readonly StreamName[],
  endingAt: string,
): Promise<StreamCheck[]> {
  return Promise.all(
    streams.map(async (stream): Promise<StreamCheck> => {
      const asked = endpointsOf(streamDeclaration(stream), pipeline.streams[stream]);
      const permissions = [...new Set(asked.flatMap((e) => (e.permission ? [e.permission] : [])))];
      const described = (endpoint: EndpointSpec) => ({
        stream,
        endpoint: `${endpoint.method} ${endpoint.path}`,
        permission: endpoint.permission ?? '',
        permissions,
        pool: endpoint.pool,
      });
      try {
        await probeStream(client, pipeline, stream, endingAt);
        // The client returns only answers it accepted (2xx, read and checked).
        return { ...described(probeEndpoint(pipeline, stream)), outcome: 'ok', status: 200, error: null };
      } catch (err) {
        const api = err instanceof FatalApiError || err instanceof RetriableApiError ? err : undefined;
        // The request that failed may be the list `all` is read from, not the stream's own endpoint: name its permission.
        // (The analytics endpoints take their ids in the query, so the failed path is the endpoint's path as declared.)
        const failed = asked.find((e) => e.method === api?.context.method && e.path === api.context.endpoint);
        return { ...described(failed ?? probeEndpoint(pipeline, stream)), ...classifyFailure(err) };
      }
    }),
  );
}

/** What a failed probe means for the user: a missing permission (403), a refused key (401), no answer, or another error. */
export function classifyFailure(err: unknown): { outcome: CheckOutcome; status: number | null; error: string } {
  const status = err instanceof FatalApiError || err instanceof RetriableApiError ? (err.status ?? null) : null;
  const outcome: CheckOutcome =
    status === 403
      ? 'missing_permission'
      : status === 401
        ? 'unauthorized'
        : err instanceof RetriableApiError && status === null
          ? 'unreachable'
          : 'error';
  return { outcome, status, error: err instanceof Error ? err.message : String(err) };
}

/** Keeps the last `X-RateLimit-*` headers seen per pool; feed it the client's `request-finished` events. */
export function headroomRecorder(): {
  record(pool: PoolId, headers: Record<string, string>): void;
  headroom(): PoolHeadroom[];
} {
  const seen = new Map<PoolId, Record<string, string>>();
  const num = (v: string | undefined) => (v === undefined || !Number.isFinite(Number(v)) ? null : Number(v));
  return {
    record(pool, headers) {
      if (Object.keys(headers).length > 0) seen.set(pool, headers);
    },
    headroom() {
      return [...seen].map(([pool, h]) => {
        const reset = parseResetValue(h['x-ratelimit-reset'], Date.now());
        return {
          pool,
          limit: num(h['x-ratelimit-limit']),
          remaining: num(h['x-ratelimit-remaining']),
          resetsAt: reset === undefined ? null : new Date(reset).toISOString(),
        };
      });
    },
  };
}
