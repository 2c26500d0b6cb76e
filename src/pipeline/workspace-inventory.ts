// `engage-etl check --list`: what a key can see in the workspace — every list the streams can read `all` from (Canvases,
// campaigns, segments, products, email templates, content blocks) and the values a series is built from (custom event
// names) — so a user replaces the emulator's ids with their own. A list the key may not read is reported, not fatal.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import type { ListRequest } from '../streams/workspace-lists.js';
import { classifyFailure } from './check-streams.js';
import type { CheckOutcome } from './check-streams.js';
import { workspaceListings } from './stream-endpoints.js';
import type { StoredListing } from './stream-endpoints.js';

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
export async function readInventory(client: ApiClient, until: Date): Promise<InventoryList[]> {
  const { lists, stored } = workspaceListings();
  const out: InventoryList[] = [];
  for (const request of lists) out.push(await attempt(request.list.name, request.list.endpoint, () => readList(client, request)));
  for (const listing of stored) out.push(await attempt(listing.stream.name, listing.stream.endpoint, () => readStored(client, listing, until)));
  return out;
}

async function attempt(list: string, endpoint: EndpointSpec, read: () => Promise<InventoryObject[]>): Promise<InventoryList> {
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

async function readStored(client: ApiClient, { stream, values }: StoredListing, until: Date): Promise<InventoryObject[]> {
  const listed = await stream.fetch(client, {}, until);
  const rows = listed.upserts.find((u) => u.table === values.table)?.rows ?? [];
  return rows.flatMap((r) => (typeof r[values.column] === 'string' ? [{ id: r[values.column] as string, name: r[values.column] as string, archived: false }] : []));
}
