// What a route of the emulator is: an endpoint of the catalogue plus a handler over the workspace.
// The server (server.ts) does everything common — auth, permission, limits, faults, JSON parsing — before a handler runs.
import type { IncomingHttpHeaders } from 'node:http';
import type { EndpointSpec } from '../api/endpoints.js';
import type { Clock } from './clock.js';
import type { Workspace } from './workspace.js';

export interface EmulatorRequest {
  method: string;
  /** Path without query string, e.g. `/catalogs/restaurants/items`. */
  path: string;
  /** Path parameters named in the endpoint's pattern (`:catalog_name` → `catalog_name`), URL-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; `undefined` when the request had none. Malformed JSON never reaches a handler (400 earlier). */
  body: unknown;
  headers: IncomingHttpHeaders;
}

export interface EmulatorResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  workspace: Workspace;
  clock: Clock;
}

export interface Route {
  endpoint: EndpointSpec;
  handle(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse;
}

/** A 400 with the platform's usual `{ message }` body. */
export function badRequest(message: string): EmulatorResponse {
  return { status: 400, body: { message } };
}
