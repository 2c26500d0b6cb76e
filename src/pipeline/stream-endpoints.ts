// The endpoints — hence the permissions — a stream asks, derived from its declaration alone: the lists `all` is resolved
// from, the endpoint each series chooses by option, and reconciliations. For the README's table every option is varied one at a time, so "canvas.data_summary with source:
// data_summary or reconcile: true" comes from the declarations, never from a hand-written table.
import type { EndpointSpec } from '../api/endpoints.js';
import { STREAMS } from '../streams/registry.js';
import { ALL, ALL_OBJECTS } from '../streams/option-reader.js';
import type { IdSelection, OptionReader } from '../streams/option-reader.js';
import type { StreamDeclaration } from '../streams/stream-declaration.js';
import type { ListedObject, ListRequest } from '../streams/workspace-lists.js';

/** What stands in for a listed object when `all` is resolved without a request. */
const STAND_IN: ListedObject = { id: 'probe', name: 'probe', version: '', tags: [], attributes: {} };

/** The options with every `all` resolved to one stand-in object (no request is sent). */
export function withStandIns(decl: StreamDeclaration, options: unknown): unknown {
  if (decl.kind === 'listing' || !decl.discovery) return options;
  return decl.discovery.resolve(options, () => [STAND_IN]).options;
}

/** The workspace lists a stream reads with `options` (for `all`, or the list it stores). */
export function listsOf(decl: StreamDeclaration, options: unknown): readonly ListRequest[] {
  if (decl.kind === 'listing') return [{ list: decl.list, includeArchived: false }];
  return decl.discovery?.needs(options) ?? [];
}

/** Every endpoint a run of the stream asks with `options`, the stream's own endpoint first, each once. */
export function endpointsOf(decl: StreamDeclaration, options: unknown): EndpointSpec[] {
  const found = new Map<string, EndpointSpec>();
  const add = (e: EndpointSpec) => found.set(e.name, e);
  const resolved = withStandIns(decl, options);
  if (decl.kind === 'series') {
    for (const series of decl.series(resolved)) add(series.endpoint ?? decl.endpoint);
    for (const check of decl.reconcile?.(resolved) ?? []) add(check.endpoint);
  } else {
    add(decl.endpoint);
  }
  for (const request of listsOf(decl, options)) add(request.list.endpoint);
  const own = found.get(decl.endpoint.name);
  return own ? [own, ...[...found.values()].filter((e) => e !== own)] : [...found.values()];
}

/** One option value other than its default, as the pipeline file writes it (`source: data_summary`). */
interface OptionVariant {
  readonly key: string;
  readonly label: string;
  readonly value: unknown;
}

/**
 * Reads a stream's options from nothing: each option at its default (required id lists get one stand-in id), except
 * `override`, which takes its variant's value. Every other value an option could take is added to `variants`.
 */
function readWith(
  decl: StreamDeclaration,
  override: OptionVariant | undefined,
  variants: OptionVariant[] = [],
): unknown {
  const pick = <T>(key: string, base: T, others: readonly { label: string; value: T }[]): T => {
    for (const o of others) variants.push({ key, ...o });
    return override?.key === key ? (override.value as T) : base;
  };
  const all = (key: string) => [{ label: `${key}: ${ALL_OBJECTS}`, value: { all: true, ids: [] } as IdSelection }];
  const reader: OptionReader = {
    unit: (allowed) =>
      pick(
        'unit',
        allowed[0] ?? 'day',
        allowed.slice(1).map((u) => ({ label: `unit: ${u}`, value: u })),
      ),
    boolean: (key) => pick(key, false, [{ label: `${key}: true`, value: true }]),
    selectors: (key) => pick(key, [ALL], []),
    ids: (key) => pick(key, ['probe'], []),
    idSelection: (key, _example, opts) => pick(key, { all: false, ids: [opts?.aggregate ? ALL : 'probe'] }, all(key)),
    choice: (key, allowed) =>
      pick(
        key,
        allowed[0]!,
        allowed.slice(1).map((v) => ({ label: `${key}: ${v}`, value: v })),
      ),
    idsOr: (key, word) =>
      pick<readonly string[] | typeof word>(key, ['probe'], [{ label: `${key}: ${word}`, value: word }]),
    subset: (key, allowed) => pick(key, allowed, []),
    fail: () => {
      throw new Error(`internal: ${decl.name} refused its own default options`);
    },
  };
  return decl.options.read(reader);
}

/** The permissions a stream needs with its default options, and those some option values add. */
export interface StreamPermissions {
  readonly needs: readonly string[];
  /** Permission → the option values that need it (`['source: data_summary', 'reconcile: true']`). */
  readonly depending: ReadonlyMap<string, readonly string[]>;
}

export function permissionsOf(decl: StreamDeclaration): StreamPermissions {
  const variants: OptionVariant[] = [];
  const permissions = (options: unknown) =>
    endpointsOf(decl, options).flatMap((e) => (e.permission ? [e.permission] : []));
  const needs = [...new Set(permissions(readWith(decl, undefined, variants)))];
  const depending = new Map<string, string[]>();
  for (const variant of variants) {
    for (const p of permissions(readWith(decl, variant))) {
      if (!needs.includes(p)) depending.set(p, [...new Set([...(depending.get(p) ?? []), variant.label])]);
    }
  }
  return { needs, depending };
}

/** Every list the registry's streams can read, by any option: what `engage-etl check --list` shows. */
export function workspaceListings(): readonly ListRequest[] {
  const lists = new Map<string, ListRequest>();
  for (const decl of STREAMS as readonly StreamDeclaration[]) {
    const variants: OptionVariant[] = [];
    const options = [readWith(decl, undefined, variants)];
    options.push(...variants.map((v) => readWith(decl, v)));
    for (const o of options) {
      for (const request of listsOf(decl, o))
        lists.set(request.list.name, { list: request.list, includeArchived: false });
    }
  }
  return [...lists.values()];
}
