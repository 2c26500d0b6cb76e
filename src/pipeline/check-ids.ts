// `engage-etl check`, the ids: every id the pipeline names (apps, segments, products, events, Canvases, campaigns,
// templates, content blocks) is looked up in the workspace's own lists — each list read once — and, for apps, which
// the platform does not list, asked with the cheapest request that names one (a day of sessions, spec 4.19, in the
// default pool). An id the workspace does not have is reported with the option that names it and the nearest id listed.
import type { ApiClient } from '../api/api-client.js';
import { fetchSessions } from '../api/analytics-endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { closestName } from '../config/nearest-name.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { FatalApiError } from '../errors.js';
import { streamDeclaration } from '../streams/registry.js';
import type { WorkspaceList } from '../streams/workspace-lists.js';
import { classifyFailure } from './check-streams.js';

/** An id a stream's options name that the workspace does not have. */
export interface UnknownId {
  stream: StreamName;
  /** The option's key: `apps`, `segments`, `products`, `events`, `canvases`, `campaigns`, `ids`. */
  option: string;
  id: string;
  /** The list it was looked up in, or `apps` (asked with a request). */
  list: string;
  /** The listed id closest to it; null for apps (no list) or an empty list. */
  nearest: string | null;
}

/** Ids that could not be verified: their list (or the app request) failed for another reason than the id. */
export interface UnverifiedIds {
  list: string;
  ids: string[];
  error: string;
}

export interface IdCheck {
  /** Distinct ids looked up. */
  checked: number;
  unknown: UnknownId[];
  unverified: UnverifiedIds[];
}

interface Named {
  stream: StreamName;
  option: string;
  id: string;
}

/** Looks up every id `streams` name; none throws for an id: each ends up checked, unknown or unverified. */
export async function checkIds(
  client: ApiClient,
  pipeline: PipelineDefinition,
  streams: readonly StreamName[],
  endingAt: string,
): Promise<IdCheck> {
  const byList = new Map<WorkspaceList | null, Named[]>();
  for (const stream of streams) {
    const decl = streamDeclaration(stream);
    const options = pipeline.streams[stream] as never;
    if (options === undefined || !decl.references) continue;
    for (const ref of decl.references(options)) {
      const named = byList.get(ref.list) ?? [];
      named.push(...ref.ids.map((id) => ({ stream, option: ref.option, id })));
      byList.set(ref.list, named);
    }
  }
  const result: IdCheck = { checked: 0, unknown: [], unverified: [] };
  for (const [list, named] of byList) {
    const ids = [...new Set(named.map((n) => n.id))];
    result.checked += ids.length;
    const verdict = list === null ? await askApps(client, ids, endingAt) : await lookUp(client, list, ids);
    if ('error' in verdict) {
      result.unverified.push({ list: list?.name ?? 'apps', ids, error: verdict.error });
      continue;
    }
    for (const n of named) {
      if (!verdict.unknown.has(n.id)) continue;
      result.unknown.push({
        ...n,
        list: list?.name ?? 'apps',
        nearest: closestName(n.id, verdict.listed)?.name ?? null,
      });
    }
  }
  return result;
}

/** Reads `list` whole (archived objects too: naming one is allowed) and returns the ids it does not hold. */
async function lookUp(
  client: ApiClient,
  list: WorkspaceList,
  ids: readonly string[],
): Promise<{ unknown: Set<string>; listed: string[] } | { error: string }> {
  const listed: string[] = [];
  try {
    for await (const page of list.pages(client, list.archivable)) listed.push(...page.map((o) => o.id));
  } catch (err) {
    return { error: classifyFailure(err).error };
  }
  const known = new Set(listed);
  return { unknown: new Set(ids.filter((id) => !known.has(id))), listed };
}

/**
 * Asks one day of sessions for each app: a 400 or 404 to a request whose only varying parameter is the app id refuses
 * that id. Any other failure (a missing permission, no answer) leaves the apps unverified.
 */
async function askApps(
  client: ApiClient,
  ids: readonly string[],
  endingAt: string,
): Promise<{ unknown: Set<string>; listed: string[] } | { error: string }> {
  const unknown = new Set<string>();
  for (const id of ids) {
    try {
      await fetchSessions(client, { length: 1, endingAt, unit: 'day', appId: id });
    } catch (err) {
      if (err instanceof FatalApiError && (err.status === 400 || err.status === 404)) unknown.add(id);
      else
        return {
          error: `${ENDPOINTS.sessionsDataSeries.method} ${ENDPOINTS.sessionsDataSeries.path}: ${classifyFailure(err).error}`,
        };
    }
  }
  return { unknown, listed: [] };
}

/** One line per unknown id: the option that names it, the id, where it was looked up and the nearest listed id. */
export function unknownIdLine(u: UnknownId): string {
  const where = `streams.${u.stream}.${u.option}`;
  if (u.list === 'apps') {
    return `${where}: app "${u.id}" was refused by ${ENDPOINTS.sessionsDataSeries.method} ${ENDPOINTS.sessionsDataSeries.path} (the platform lists no apps): copy the app's API identifier from the dashboard's settings, or use "*"`;
  }
  const nearest = u.nearest === null ? 'the list is empty' : `nearest: "${u.nearest}"`;
  return `${where}: "${u.id}" is not in the workspace's ${u.list} list (${nearest}; \`engage-etl check --list\` shows them all, or say all)`;
}
