// Discovery's listings in DuckDB: the entries the listings table (`listed_objects`) keeps per list, and what the
// discovered tables (with `_list_version` and `_removed_at`) hold of the objects the lists show — read back as rows to
// upsert again. The pipeline hands it the tables' specs, declared in streams/; the SQL of these reads lives here.
import { ident } from './table-definition.js';
import type { TableSpec } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

/**
 * The ids of a list parameter as a subquery: `NOT IN` it is a hash anti-join, where `NOT list_contains` scanned the
 * list once per stored row (20,000 Canvases: 7.9 s a query against 1.3 s, and quadratic).
 */
const UNNESTED = (param: string) => `(SELECT unnest(${param}::VARCHAR[]))`;

export class ListingStore {
  readonly #wh: Warehouse;
  readonly #listings: TableSpec;

  /** `listings`: the spec of the table of list entries (a `listing`, an `id` and `_removed_at` among its columns). */
  constructor(warehouse: Warehouse, listings: TableSpec) {
    this.#wh = warehouse;
    this.#listings = listings;
  }

  /** How many entries of `listing` are stored and not marked removed. */
  async activeCount(listing: string): Promise<number> {
    const [row] = await this.#wh.query(
      `SELECT count(*) AS n FROM ${ident(this.#listings.name)} WHERE "listing" = $1 AND "_removed_at" IS NULL`,
      [listing],
    );
    return Number(row?.['n'] ?? 0);
  }

  /** The entries of `listing` not marked removed, as rows. */
  async activeEntries(listing: string): Promise<Record<string, unknown>[]> {
    return this.#rows(this.#listings, `"listing" = $1 AND "_removed_at" IS NULL`, [listing]);
  }

  /** The entries of `listing` not marked removed whose id is not among `ids`, as rows to upsert again. */
  async entriesLeftOut(listing: string, ids: readonly string[]): Promise<Record<string, unknown>[]> {
    return this.#rows(this.#listings, `"listing" = $1 AND "_removed_at" IS NULL AND "id" NOT IN ${UNNESTED('$2')}`, [
      listing,
      [...ids],
    ]);
  }

  /** The rows of `spec` not marked removed whose key is not among `ids`, as rows to upsert again. */
  async objectsLeftOut(spec: TableSpec, ids: readonly string[]): Promise<Record<string, unknown>[]> {
    return this.#rows(spec, `"_removed_at" IS NULL AND ${ident(spec.key[0]!)} NOT IN ${UNNESTED('$1')}`, [[...ids]]);
  }

  /**
   * The list version each stored object of `spec` was written at, and as of when: the --until of the run that wrote the
   * row (the run's clock, as the schedule's), else its load time. Objects stamped removed are left out.
   */
  async listVersions(spec: TableSpec): Promise<Map<string, { version: string; loadedAt: Date }>> {
    const key = ident(spec.key[0]!);
    const rows = await this.#wh.query(
      `SELECT t.${key} AS id, t."_list_version" AS v, COALESCE(r."until", t."_loaded_at") AS at
       FROM ${ident(spec.name)} t LEFT JOIN "_etl_runs" r ON r."run_id" = t."_run_id"
       WHERE t."_removed_at" IS NULL AND t."_list_version" IS NOT NULL`,
    );
    return new Map(rows.map((r) => [String(r['id']), { version: String(r['v']), loadedAt: r['at'] as Date }]));
  }

  /** Stored rows of `spec` matching `where`, as rows to upsert again (JSON columns parsed back from their text). */
  async #rows(spec: TableSpec, where: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    const columns = spec.columns.map((c) => ident(c.name)).join(', ');
    const rows = await this.#wh.query(`SELECT ${columns} FROM ${ident(spec.name)} WHERE ${where}`, params);
    const json = spec.columns.filter((c) => c.type === 'JSON').map((c) => c.name);
    return rows.map((row) => {
      for (const c of json) if (typeof row[c] === 'string') row[c] = JSON.parse(row[c]);
      return row;
    });
  }
}
