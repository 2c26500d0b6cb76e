// The details a series reads to tell its quiet days from missing ones (SeriesActivity): each object's at most once a run,
// and shared with the run's own details stream when that stream reads the same object, so no object is asked twice.
import type { ApiClient } from '../api/api-client.js';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { ActiveSpan } from '../extract/incremental-cursor.js';
import { activeSpan } from '../extract/incremental-cursor.js';
import type { PerIdStream, SeriesActivity } from '../streams/stream-declaration.js';
import { activityTable } from '../streams/stream-declaration.js';
import type { ListedObject } from '../streams/workspace-lists.js';
import type { Plan, SeriesPlan } from './plan.js';
import { failureScope } from './stream-failure.js';

/** What a read begun for a series does beyond the read: the run's requests, commits and warnings. */
export interface DetailsReadHooks {
  /** Stores the rows of an object no stream of the run reads, as its details stream would. */
  commit(series: SeriesPlan, rows: ExtractedRows): Promise<void>;
  /** Counts a request the plan did not: the details of an object no stream of the run reads. */
  extraRequest(): void;
  /** The details of a series' object could not be read: its days left out stay holes. */
  unreadable(series: SeriesPlan, error: unknown): void;
  /** The list entry of a series' object whose details are due (discovery's `detailsDue`). */
  listed(stream: string, id: string): ListedObject | undefined;
}

function keyOf(stream: string, id: string): string {
  return `${stream}\u0000${id}`;
}

/** The object's span from its details rows: the row of the activity's table holding that id. */
function spanOf(a: SeriesActivity, id: string, rows: ExtractedRows): ActiveSpan | undefined {
  const table = activityTable(a);
  const row = rows.upserts.find((u) => u.table === table)?.rows.find((r) => r[a.idColumn] === id);
  const at = (v: unknown) => (v instanceof Date ? v : null);
  return row ? activeSpan(at(row[a.first]), at(row[a.last])) : undefined;
}

export class DetailsReads {
  /** Objects the run's id-by-id streams read (stream and id). */
  readonly #planned: ReadonlySet<string>;
  /** Objects some series may ask the details of (its plan's detailsDue), and the activity they give. */
  readonly #wanted: ReadonlyMap<string, SeriesActivity>;
  readonly #hooks: DetailsReadHooks;
  /** Reads a series began for an object the run's details stream reads: that stream's task takes and commits them. */
  readonly #begun = new Map<string, Promise<ExtractedRows>>();
  readonly #spans = new Map<string, Promise<ActiveSpan | undefined>>();

  constructor(plan: Pick<Plan, 'series' | 'perId'>, hooks: DetailsReadHooks) {
    this.#planned = new Set(plan.perId.flatMap((p) => p.ids.map((id) => keyOf(p.stream.name, id))));
    const wanted = new Map<string, SeriesActivity>();
    for (const sp of plan.series) {
      const a = sp.stream.activity;
      const id = a ? sp.instance.dims[a.dim] : undefined;
      if (sp.detailsDue && a && id !== undefined) wanted.set(keyOf(a.details.name, id), a);
    }
    this.#wanted = wanted;
    this.#hooks = hooks;
  }

  /** For an id-by-id stream's own task: the object's rows, taken from a series that began the read, or read now. */
  forStream(stream: PerIdStream, id: string, read: () => Promise<ExtractedRows>): Promise<ExtractedRows> {
    const key = keyOf(stream.name, id);
    const begun = this.#begun.get(key);
    if (begun) {
      this.#begun.delete(key);
      return begun;
    }
    const rows = read();
    const activity = this.#spans.has(key) ? undefined : this.#wanted.get(key);
    if (activity)
      this.#spans.set(
        key,
        rows.then(
          (r) => spanOf(activity, id, r),
          () => undefined,
        ),
      );
    return rows;
  }

  /**
   * For a series whose window left out days its known span does not explain: the span its object's details give, read
   * once a run. Undefined when they give none, or cannot be read (a warning says so; a failure of the whole run throws).
   */
  forSeries(sp: SeriesPlan, client: ApiClient): Promise<ActiveSpan | undefined> {
    const a = sp.stream.activity!;
    const id = sp.instance.dims[a.dim]!;
    const key = keyOf(a.details.name, id);
    const known = this.#spans.get(key);
    if (known) return known;
    const listed = sp.detailsDue === 'listed' ? this.#hooks.listed(sp.stream.name, id) : undefined;
    // The version the details stream stores with them, in its terms (its options may count).
    const versioned =
      listed && a.details.listVersion
        ? { ...listed, version: a.details.listVersion(listed, a.detailsOptions) }
        : listed;
    const rows = a.details.fetch(client, id, a.detailsOptions, versioned);
    const read = rows.then(
      (r) => spanOf(a, id, r),
      (error: unknown) => {
        if (failureScope(error) === 'run') throw error;
        this.#hooks.unreadable(sp, error);
        return undefined;
      },
    );
    let span = read;
    if (this.#planned.has(key)) {
      this.#begun.set(key, rows);
    } else {
      this.#hooks.extraRequest();
      const committed = rows.then(
        (r) => this.#hooks.commit(sp, r),
        () => undefined,
      );
      span = Promise.all([read, committed]).then(([s]) => s);
    }
    this.#spans.set(key, span);
    return span;
  }
}
