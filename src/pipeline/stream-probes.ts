// Cheap requests per stream, for `engage-etl check`, derived from the stream's declaration by its kind (no table of
// streams beside the registry): a series asks for one unit of the first series of each endpoint its options choose (the
// four KPIs have four) and one day of its first reconciliation, a per-id stream for its first id, a list for its first
// page. The endpoints, hence the permissions a key needs, are the declaration's. An option that says `all` (`ids: all`,
// `events: all`) is resolved by discovery at run time: the probe reads the first page of that list and asks for its
// first object.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import { splitWindows } from '../extract/windows.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import type { SeriesInstance, StreamDeclaration } from '../streams/stream-declaration.js';
import type { ListedObject, ListRequest } from '../streams/workspace-lists.js';
import { listingKey } from '../streams/workspace-lists.js';
import { addUnits, floorUnit, parseUtcInstant } from '../time/utc-time.js';
import { withStandIns } from './stream-endpoints.js';

/** The endpoint the stream's probe asks first (a series may choose its own by option, e.g. Canvas `source: data_summary`). */
export function probeEndpoint(pipeline: PipelineDefinition, stream: StreamName): EndpointSpec {
  const decl = streamDeclaration(stream);
  const given = pipeline.streams[stream];
  if (decl.kind !== 'series' || given === undefined) return decl.endpoint;
  return decl.series(withStandIns(decl, given))[0]?.endpoint ?? decl.endpoint;
}

/**
 * Send the stream's probe through `client`; resolves when the server answered it, throws the client's error otherwise.
 * `endingAt` is a complete past instant (ISO 8601).
 */
export async function probeStream(
  client: ApiClient,
  pipeline: PipelineDefinition,
  stream: StreamName,
  endingAt: string,
): Promise<void> {
  const decl = streamDeclaration(stream);
  const given = pipeline.streams[stream];
  if (given === undefined) throw new Error(`internal: ${stream} is not in the pipeline ${pipeline.name}`);
  const options = await withFirstListed(client, decl, given);
  if (options === undefined) return;
  switch (decl.kind) {
    case 'series': {
      const all = decl.series(options);
      if (all.length === 0) throw new Error(`internal: ${stream} declares no series to probe`);
      const instant = parseUtcInstant(endingAt);
      if (!instant) throw new Error(`internal: ${JSON.stringify(endingAt)} is not an ISO 8601 instant`);
      const firstOfEach = new Map<string, SeriesInstance>();
      for (const series of all) {
        const name = (series.endpoint ?? decl.endpoint).name;
        if (!firstOfEach.has(name)) firstOfEach.set(name, series);
      }
      for (const series of firstOfEach.values()) {
        const end = floorUnit(instant, series.unit);
        const [window] = splitWindows({ unit: series.unit, start: addUnits(end, -1, series.unit), end }, 1);
        await series.fetch(client, window!);
      }
      const [check] = decl.reconcile?.(options) ?? [];
      if (check) {
        const day = floorUnit(instant, 'day');
        await check.fetch(client, day.minus({ days: 1 }), day);
      }
      return;
    }
    case 'per_id': {
      const [id] = decl.ids(options);
      if (id === undefined) throw new Error(`internal: ${stream} has no id to probe`);
      await decl.fetch(client, id, options);
      return;
    }
    case 'paged_list':
      await client.request<unknown>({ endpoint: decl.endpoint });
      return;
    case 'listing':
      await firstPage(client, { list: decl.list, includeArchived: false });
      return;
  }
}

/**
 * The options with `all` replaced by listed objects, read page by page until the stream keeps one (a page may hold only
 * objects it skips, e.g. segments whose tracking is off); undefined when the lists end first — reading them was the
 * probe, and the stream has nothing to ask for yet.
 */
async function withFirstListed(client: ApiClient, decl: StreamDeclaration, options: unknown): Promise<unknown> {
  const needs = decl.kind === 'listing' ? [] : (decl.discovery?.needs(options) ?? []);
  if (needs.length === 0 || decl.kind === 'listing' || !decl.discovery) return options;
  const lists = needs.map((request) => ({
    key: listingKey(request),
    pages: request.list.pages(client, request.includeArchived),
    objects: [] as ListedObject[],
    done: false,
  }));
  try {
    while (lists.some((l) => !l.done)) {
      for (const l of lists.filter((x) => !x.done)) {
        const page = await l.pages.next();
        if (page.done) l.done = true;
        else l.objects.push(...page.value);
      }
      if (lists.some((l) => l.objects.length === 0)) continue;
      const resolved = decl.discovery.resolve(
        options,
        (request) => lists.find((l) => l.key === listingKey(request))?.objects ?? [],
      ).options;
      if (asksSomething(decl, resolved)) return resolved;
    }
    return undefined;
  } finally {
    for (const l of lists) await l.pages.return(undefined);
  }
}

/** Whether these options give the stream at least one series or id to ask for. */
function asksSomething(decl: StreamDeclaration, options: unknown): boolean {
  if (decl.kind === 'series') return decl.series(options).length > 0;
  if (decl.kind === 'per_id') return decl.ids(options).length > 0;
  return true;
}

async function firstPage(client: ApiClient, request: ListRequest): Promise<ListedObject[]> {
  const pages = request.list.pages(client, request.includeArchived);
  try {
    return (await pages.next()).value ?? [];
  } finally {
    await pages.return(undefined);
  }
}
