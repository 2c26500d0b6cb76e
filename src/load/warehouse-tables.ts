// The tables a warehouse holds, as the layers above hand them to it (streams/table-specs.ts builds the registry's):
// every table spec, a history table right after its table, which series stream fills each, and the staging layout
// their rows are committed through. load/ reads the tables from here, never from the stream registry.
import { FatalError } from '../errors.js';
import { StagingLayout } from './row-package.js';
import type { TableSpec } from './table-definition.js';
import { historySpec } from './table-history.js';

export class WarehouseTables {
  /** Every table, in the order given, each followed by its history table when it declares one. */
  readonly all: readonly TableSpec[];
  /** The tables fetched rows are merged into, in the order given. */
  readonly fetched: readonly TableSpec[];
  /** How a package stages the fetched tables' rows (row-package.ts). */
  readonly staging: StagingLayout;
  readonly #byName: ReadonlyMap<string, TableSpec>;
  readonly #seriesStreams: ReadonlyMap<string, string>;

  /** `seriesStreams`: the series stream that fills each table filled by one (its changes are audited as restatements). */
  constructor(fetched: readonly TableSpec[], seriesStreams: ReadonlyMap<string, string>) {
    this.fetched = fetched;
    this.all = fetched.flatMap((s) => (s.history ? [s, historySpec(s)] : [s]));
    this.staging = new StagingLayout(fetched);
    this.#byName = new Map(this.all.map((s) => [s.name, s]));
    this.#seriesStreams = seriesStreams;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The spec of a table; throws for a name outside these tables (a programming error, not user input). */
  spec(name: string): TableSpec {
    const spec = this.#byName.get(name);
    if (!spec)
      throw new FatalError(`unknown warehouse table "${name}"; use one of: ${this.all.map((s) => s.name).join(', ')}`);
    return spec;
  }

  /** The series stream that fills `table`, or undefined for tables of lists and snapshots (their changes are not restatements). */
  seriesStreamOf(table: string): string | undefined {
    return this.#seriesStreams.get(table);
  }
}
