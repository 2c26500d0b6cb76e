// Discovery, at the start of each run: read once each workspace list the pipeline's `all` needs, store the entries
// (stamping `_removed_at` on what a list stopped showing), and resolve every `all` into ids before planning. Per-id
// streams then re-read only the objects whose list version moved since their row was written. Without a client (the
// `plan` command) the last run's stored lists stand in for the lists, and page counts are estimates; `plan --discover`
// passes one and reads them as the run does.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import { rowsOf } from '../load/table-definition.js';
import type { TableSpec } from '../load/table-definition.js';
import { ListingStore } from '../load/listing-store.js';
import type { Warehouse } from '../load/warehouse.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import type { ListedObject, ListRequest } from '../streams/workspace-lists.js';
import { isUnversioned, listedObjectsTable, listingKey } from '../streams/workspace-lists.js';
import type { RunWarning } from './run-events.js';
import { listsOf } from './stream-endpoints.js';
import { failureScope } from './stream-failure.js';

/** One list as the run reads it (or, for `plan`, as it expects to). */
export interface DiscoveredList {
  /** `canvases`, `canvases+archived`, `products`… (see listingKey). */
  listing: string;
  endpoint: EndpointSpec;
  /** Pages read, or for `plan` the pages expected from the entries stored last run. */
  pages: number;
  estimated: boolean;
  objects: number;
  /** The ids a run read (absent for `plan` without a client): ids the pipeline names are checked against them. */
  ids?: ReadonlySet<string>;
}

/** What a per-id stream's ids came from, for the plan and the fetch tasks. */
export interface DiscoveredIds {
  /** The list entry of each listed id: its fields and version go into the row. */
  listed: ReadonlyMap<string, ListedObject>;
  /** Listed ids whose stored row was written at the version the list shows now: not re-read. */
  unchanged: ReadonlySet<string>;
}

export interface Discovery {
  /** The pipeline with every `all` replaced by ids. */
  pipeline: PipelineDefinition;
  lists: DiscoveredList[];
  perId: ReadonlyMap<StreamName, DiscoveredIds>;
  /**
   * Per series stream whose quiet days its objects' details tell (SeriesStream.activity): the listed objects whose
   * details are not stored at the version the list shows, which the series may read itself. Only these are kept: on a
   * nightly run of a workspace that did not change, none.
   */
  detailsDue: ReadonlyMap<StreamName, ReadonlyMap<string, ListedObject>>;
  /** List entries, listing streams' rows, and rows newly stamped `_removed_at`: committed before anything is fetched. */
  rows: ExtractedRows;
  warnings: RunWarning[];
  /**
   * Streams a list they need could not be read for (a body that does not match, a 4xx, retries exhausted): they fail
   * alone, with that error, and are left out of the plan. A failure that concerns the whole run is thrown instead.
   */
  failed: ReadonlyMap<StreamName, unknown>;
}

export interface DiscoverInput {
  pipeline: PipelineDefinition;
  streams: readonly StreamName[];
  /** Reads the lists; absent for `plan` without --discover, which sends nothing and takes the stored lists instead. */
  client?: ApiClient;
  /** Absent when no database exists yet (or a full refresh plans from nothing). */
  wh?: Warehouse;
  /** The run's frozen upper bound: stamps first_seen_at and _removed_at. */
  until: Date;
  /**
   * Told after each page a list read: its listing, pages so far and the pages expected (from the entries stored last
   * run; as many as read when nothing is stored), objects so far. A 20,000-Canvas workspace's lists take minutes.
   */
  onPage?: (progress: { listing: string; pages: number; expected: number; objects: number }) => void;
}

/** Nothing discovered: a pipeline without `all`. */
function noDiscovery(pipeline: PipelineDefinition): Discovery {
  return {
    pipeline,
    lists: [],
    perId: new Map(),
    detailsDue: new Map(),
    rows: { upserts: [], replaces: [] },
    warnings: [],
    failed: new Map(),
  };
}

export async function discover(input: DiscoverInput): Promise<Discovery> {
  const requests = new Map<string, ListRequest>();
  for (const name of input.streams) {
    const options = input.pipeline.streams[name] as unknown;
    if (options === undefined) continue;
    for (const r of listsOf(streamDeclaration(name), options)) requests.set(listingKey(r), r);
  }
  if (requests.size === 0) return noDiscovery(input.pipeline);

  const settled = await Promise.all(
    [...requests].map(async ([key, r]) => {
      try {
        return { key, r, ...(await readList(input, key, r)) };
      } catch (error) {
        if (failureScope(error) === 'run') throw error;
        return { key, r, error };
      }
    }),
  );
  const read = settled.filter((l): l is Extract<typeof l, { objects: ListedObject[] }> => 'objects' in l);
  const shrank = read.flatMap((l) => (l.warning ? [l.warning] : []));
  const unreadable = new Map(settled.filter((l) => 'error' in l).map((l) => [l.key, (l as { error: unknown }).error]));
  const failed = new Map<StreamName, unknown>();
  const byKey = new Map(read.map((l) => [l.key, l.objects]));
  const lookup = (r: ListRequest): readonly ListedObject[] => byKey.get(listingKey(r)) ?? [];
  const discovery = noDiscovery(input.pipeline);
  discovery.warnings.push(...shrank);
  discovery.lists.push(
    ...read.map((l) => ({
      listing: l.key,
      endpoint: l.r.list.endpoint,
      pages: l.pages,
      estimated: input.client === undefined,
      objects: l.objects.length,
      ...(input.client ? { ids: new Set(l.objects.map((o) => o.id)) } : {}),
    })),
  );

  const streams: Record<string, unknown> = { ...input.pipeline.streams };
  const perId = new Map<StreamName, DiscoveredIds>();
  const detailsDue = new Map<StreamName, Map<string, ListedObject>>();
  for (const name of input.streams) {
    const options = streams[name];
    const stream = streamDeclaration(name);
    if (options === undefined) continue;
    const missing = listsOf(stream, options)
      .map(listingKey)
      .find((key) => unreadable.has(key));
    if (missing !== undefined) {
      failed.set(name, unreadable.get(missing));
      continue;
    }
    if (stream.kind === 'listing') {
      const listed = lookup({ list: stream.list, includeArchived: false });
      if (input.client) discovery.rows.upserts.push(...stream.rows(listed, input.until).upserts);
      await markRemoved(input, discovery, stream.tables[0]!, new Set(listed.map((o) => o.id)));
      continue;
    }
    const needs = stream.discovery?.needs(options) ?? [];
    if (stream.discovery === undefined || needs.length === 0) continue;
    const resolved = stream.discovery.resolve(options, lookup);
    streams[name] = resolved.options;
    for (const note of resolved.notes)
      discovery.warnings.push({ code: 'objects_skipped', stream: name, message: note });
    if (stream.kind === 'series' && stream.activity) {
      const { details, detailsOptions } = stream.activity;
      const stored = await storedVersions(input.wh, details.tables[0]!);
      // The list's own entries are kept (no copy per object): the details' version is computed again when they are read.
      const versionOf = (o: ListedObject) => (details.listVersion ? details.listVersion(o, detailsOptions) : o.version);
      const listed = needs.flatMap((r) => lookup(r));
      detailsDue.set(
        name,
        new Map(listed.filter((o) => stored.get(o.id)?.version !== versionOf(o)).map((o) => [o.id, o])),
      );
    }
    if (stream.kind !== 'per_id') continue;
    // The version the fetch stores and the stored one are compared in the stream's terms (its options may count).
    const versioned = (o: ListedObject): ListedObject =>
      stream.listVersion ? { ...o, version: stream.listVersion(o, resolved.options) } : o;
    const listed = new Map(needs.flatMap((r) => lookup(r)).map((o) => [o.id, versioned(o)]));
    const explicit = new Set(stream.ids(options));
    const stored = await storedVersions(input.wh, stream.tables[0]!);
    const untilMs = input.until.getTime();
    // An entry without a usable edit time shows the same version for ever: its details are re-read once a week instead.
    const due = (o: ListedObject): boolean =>
      isUnversioned(o.version) && untilMs - (stored.get(o.id)?.loadedAt.getTime() ?? 0) >= UNVERSIONED_REREAD_MS;
    const unchanged = new Set(
      [...listed.values()].filter((o) => stored.get(o.id)?.version === o.version && !due(o)).map((o) => o.id),
    );
    const reread = [...listed.values()].filter((o) => stored.get(o.id)?.version === o.version && due(o)).length;
    if (reread > 0) {
      discovery.warnings.push({
        code: 'objects_reread_without_edit_time',
        stream: name,
        message: `${reread} listed object(s) of ${name} have no usable last_edited in their list entry, so a change cannot be seen from the list: their details are re-read every ${UNVERSIONED_REREAD_MS / 86_400_000} days, this run included`,
      });
    }
    perId.set(name, { listed, unchanged });
    await markRemoved(input, discovery, stream.tables[0]!, new Set([...listed.keys(), ...explicit]));
  }
  for (const l of read) {
    if (!input.client) continue;
    discovery.rows.upserts.push(
      rowsOf(
        listedObjectsTable,
        l.objects.map((o) => ({
          listing: l.key,
          id: o.id,
          name: o.name,
          version: o.version,
          tags: o.tags,
          attributes: o.attributes,
          first_seen_at: input.until,
          _removed_at: null,
        })),
      ),
    );
    const listed = new Set(l.objects.map((o) => o.id));
    const stale = (await listingsOf(input.wh)?.entriesLeftOut(l.key, [...listed])) ?? [];
    if (stale.length > 0)
      discovery.rows.upserts.push({
        table: listedObjectsTable.name,
        rows: stale.map((row) => ({ ...row, _removed_at: input.until })),
      });
  }
  return {
    ...discovery,
    pipeline: { ...input.pipeline, streams: streams as PipelineDefinition['streams'] },
    perId,
    detailsDue,
    failed,
  };
}

/** A list that shrinks to less than this share of the entries stored for it is read a second time before anything is marked removed. */
const SHRINK_SHARE = 0.5;

/**
 * Every page of a list (live), or the entries the last runs stored for it (plan). A live list that shrinks by more than
 * half against the stored one is read again at once: an object is taken as gone only when both reads leave it out (the
 * union is what the run lists), and the run says so once.
 */
async function readList(
  input: DiscoverInput,
  key: string,
  r: ListRequest,
): Promise<{ objects: ListedObject[]; pages: number; warning?: RunWarning }> {
  if (input.client) {
    const client = input.client;
    const stored = (await listingsOf(input.wh)?.activeCount(key)) ?? 0;
    const expected = r.list.estimatePages(stored);
    const readOnce = async (pagesBefore: number) => {
      const objects: ListedObject[] = [];
      let pages = 0;
      for await (const page of r.list.pages(client, r.includeArchived)) {
        pages++;
        objects.push(...page);
        input.onPage?.({
          listing: key,
          pages: pagesBefore + pages,
          expected: Math.max(expected, pagesBefore + pages),
          objects: objects.length,
        });
      }
      return { objects, pages };
    };
    const first = await readOnce(0);
    if (first.objects.length >= stored * SHRINK_SHARE) return first;
    const second = await readOnce(first.pages);
    const seen = new Set(first.objects.map((o) => o.id));
    const objects = [...first.objects, ...second.objects.filter((o) => !seen.has(o.id))];
    const agreed = second.objects.length === first.objects.length && second.objects.every((o) => seen.has(o.id));
    return {
      objects,
      pages: first.pages + second.pages,
      warning: {
        code: 'list_shrank',
        message: `${r.list.endpoint.method} ${r.list.endpoint.path} listed ${first.objects.length} ${key} where ${stored} are stored; read again, it listed ${second.objects.length}. ${
          agreed
            ? `Both reads agree: the ${stored - objects.length} missing are marked removed`
            : `The reads disagree: only objects both reads left out are marked removed (${Math.max(0, stored - objects.length)})`
        }; check the key's permissions or the workspace if that is not expected`,
      },
    };
  }
  const rows = (await listingsOf(input.wh)?.activeEntries(key)) ?? [];
  const objects = rows.map((row) => ({
    id: String(row['id']),
    name: (row['name'] as string | null) ?? null,
    version: String(row['version']),
    tags: (row['tags'] as string[] | null) ?? [],
    attributes: (row['attributes'] as Record<string, unknown> | null) ?? {},
  }));
  return { objects, pages: r.list.estimatePages(objects.length) };
}

/** The listings of the database, when there is one. */
function listingsOf(wh: Warehouse | undefined): ListingStore | undefined {
  return wh && new ListingStore(wh, listedObjectsTable);
}

function hasDiscoveredColumns(spec: TableSpec): boolean {
  return spec.columns.some((c) => c.name === '_list_version') && spec.columns.some((c) => c.name === '_removed_at');
}

/** How often details of an object whose list entry has no usable edit time are re-read. */
const UNVERSIONED_REREAD_MS = 7 * 86_400_000;

/**
 * The list version each stored object was written at, and as of when; objects stamped removed count as changed (they
 * are re-read).
 */
async function storedVersions(
  wh: Warehouse | undefined,
  spec: TableSpec,
): Promise<Map<string, { version: string; loadedAt: Date }>> {
  if (!wh || !hasDiscoveredColumns(spec)) return new Map();
  return listingsOf(wh)!.listVersions(spec);
}

/** Stamps `_removed_at` on the stored rows of `spec` that are not among `kept` (a list with `all` no longer shows them). */
async function markRemoved(
  input: DiscoverInput,
  discovery: Discovery,
  spec: TableSpec,
  kept: ReadonlySet<string>,
): Promise<void> {
  if (!input.client || !hasDiscoveredColumns(spec)) return;
  // Only the rows that are gone are read whole: on a nightly run that is usually none.
  const gone = (await listingsOf(input.wh)?.objectsLeftOut(spec, [...kept])) ?? [];
  if (gone.length > 0)
    discovery.rows.upserts.push({ table: spec.name, rows: gone.map((row) => ({ ...row, _removed_at: input.until })) });
}
