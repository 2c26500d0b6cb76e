// The names the analyst views should show, computed here from the base tables without the views' SQL.
type Row = Record<string, unknown>;

export type NamedKind = 'canvases' | 'campaigns' | 'segments';

/**
 * The current name of each Canvas, campaign or segment (`kind` as the lists are named) by id, written without SQL: its
 * details table's name, else the list entry a run last showed (a current entry before a removed one, the plain list
 * before the one with archived objects), else for a Canvas its latest summary day's name.
 */
export async function currentNames(
  q: (sql: string) => Promise<Row[]>,
  kind: NamedKind,
): Promise<Map<unknown, unknown>> {
  const names = new Map<unknown, unknown>();
  const put = (id: unknown, name: unknown) => {
    if (typeof name === 'string' && name !== '' && !names.has(id)) names.set(id, name);
  };
  const details = { canvases: 'canvas_id', campaigns: 'campaign_id', segments: 'segment_id' } as const;
  for (const r of await q(`SELECT "${details[kind]}" AS id, name FROM "${kind}"`)) put(r.id, r.name);
  for (const removed of [false, true]) {
    for (const listing of [kind, `${kind}+archived`]) {
      for (const r of await q(
        `SELECT id, name FROM listed_objects WHERE listing = '${listing}' AND (_removed_at IS NOT NULL) = ${String(removed)}`,
      ))
        put(r.id, r.name);
    }
  }
  if (kind === 'canvases')
    for (const r of await q(`SELECT canvas_id, name FROM canvas_summary ORDER BY day DESC`)) put(r.canvas_id, r.name);
  return names;
}

/** What a chart calls each object: its name, with the id beside a name another object of the kind has too. */
export function chartLabels(names: ReadonlyMap<unknown, unknown>): Map<unknown, string> {
  const uses = new Map<unknown, number>();
  for (const name of names.values()) uses.set(name, (uses.get(name) ?? 0) + 1);
  return new Map(
    [...names].map(([id, name]) => [id, uses.get(name)! > 1 ? `${String(name)} (${String(id)})` : String(name)]),
  );
}
