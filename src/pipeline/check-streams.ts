// `engage-etl check`: one cheap request per stream of a pipeline, with the key and base URL of a run, telling per
// stream whether it is reachable and the key holds the permission it needs — before a nightly run finds out at 03:00.
import type { ApiClient } from '../api/api-client.js';
import type { PoolId } from '../api/endpoints.js';
import { parseResetValue } from '../api/rate-limit-headers.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { FatalApiError, RetriableApiError } from '../errors.js';
import { probeEndpoint, probeStream } from './stream-probes.js';

export type CheckOutcome = 'ok' | 'missing_permission' | 'unauthorized' | 'unreachable' | 'error';

export interface StreamCheck {
  stream: StreamName;
  /** `GET /purchases/revenue_series`. */
  endpoint: string;
  permission: string;
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
export async function checkStreams(client: ApiClient, pipeline: PipelineDefinition, streams: readonly StreamName[], endingAt: string): Promise<StreamCheck[]> {
  return Promise.all(streams.map(async (stream): Promise<StreamCheck> => {
    const endpoint = probeEndpoint(pipeline, stream);
    const base = { stream, endpoint: `${endpoint.method} ${endpoint.path}`, permission: endpoint.permission ?? '', pool: endpoint.pool };
    try {
      await probeStream(client, pipeline, stream, endingAt);
      // The client returns only answers it accepted (2xx, read and checked).
      return { ...base, outcome: 'ok', status: 200, error: null };
    } catch (err) {
      const status = err instanceof FatalApiError || err instanceof RetriableApiError ? (err.status ?? null) : null;
      const message = err instanceof Error ? err.message : String(err);
      const outcome: CheckOutcome = status === 403 ? 'missing_permission' : status === 401 ? 'unauthorized' : err instanceof RetriableApiError && status === null ? 'unreachable' : 'error';
      return { ...base, outcome, status, error: message };
    }
  }));
}

/** Keeps the last `X-RateLimit-*` headers seen per pool; feed it the client's `request-finished` events. */
export function headroomRecorder(): { record(pool: PoolId, headers: Record<string, string>): void; headroom(): PoolHeadroom[] } {
  const seen = new Map<PoolId, Record<string, string>>();
  const num = (v: string | undefined) => (v === undefined || !Number.isFinite(Number(v)) ? null : Number(v));
  return {
    record(pool, headers) {
      if (Object.keys(headers).length > 0) seen.set(pool, headers);
    },
    headroom() {
      return [...seen].map(([pool, h]) => {
        const reset = parseResetValue(h['x-ratelimit-reset'], Date.now());
        return { pool, limit: num(h['x-ratelimit-limit']), remaining: num(h['x-ratelimit-remaining']), resetsAt: reset === undefined ? null : new Date(reset).toISOString() };
      });
    },
  };
}
