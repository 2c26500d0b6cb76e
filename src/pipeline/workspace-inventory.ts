// `engage-etl check --list`: what a key can see in the workspace — every list the streams can read `all` from (Canvases,
// campaigns, segments, products, custom event names, email templates, content blocks) — so a user replaces the
// emulator's ids with their own. A list the key may not read is reported, not fatal.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import type { ListRequest } from '../streams/workspace-lists.js';
import { classifyFailure } from './check-streams.js';
import type { CheckOutcome } from './check-streams.js';
import { workspaceListings } from './stream-endpoints.js';

export interface InventoryObject {
  id: string;
  name: string | null;
  /** Listed only when archived objects are asked for (the list itself has no archived flag). */
  archived: boolean;
}

export interface InventoryList {
  /** `canvases`, `email_templates`, `custom_events`… */
  list: string;
  /** `GET /canvas/list`. */
  endpoint: string;
  permission: string;
  outcome: CheckOutcome;
  status: number | null;
  /** What went wrong, credentials scrubbed; null when the list was read. */
  error: string | null;
  objects: InventoryObject[];
}

/** Reads every list through `client`, one after another (they share pools with the run); none throws. */
export async function readInventory(client: ApiClient): Promise<InventoryList[]> {
  const out: InventoryList[] = [];
  for (const request of workspaceListings())
    out.push(await attempt(request.list.name, request.list.endpoint, () => readList(client, request)));
  return out;
}

async function attempt(
  list: string,
  endpoint: EndpointSpec,
  read: () => Promise<InventoryObject[]>,
): Promise<InventoryList> {
  const base = { list, endpoint: `${endpoint.method} ${endpoint.path}`, permission: endpoint.permission ?? '' };
  try {
    return { ...base, outcome: 'ok', status: 200, error: null, objects: await read() };
  } catch (err) {
    return { ...base, ...classifyFailure(err), objects: [] };
  }
}

async function readList(client: ApiClient, request: ListRequest): Promise<InventoryObject[]> {
  const read = async (includeArchived: boolean) => {
    const objects = [];
    for await (const page of request.list.pages(client, includeArchived)) objects.push(...page);
    return objects;
  };
  const current = await read(false);
  if (!request.list.archivable) return current.map((o) => ({ id: o.id, name: o.name, archived: false }));
  const live = new Set(current.map((o) => o.id));
  return (await read(true)).map((o) => ({ id: o.id, name: o.name, archived: !live.has(o.id) }));
}
