// The DDL of every stream table as one text, generated from the declarations: what `npm run sql` writes to
// sql/generated/tables.sql for people to read, and what a test compares that file with. DuckDB gets the same statements
// from createTableSql when a database is opened.
import { createTableSql } from './table-definition.js';
import type { TableSpec } from './table-definition.js';

const GENERATED_SQL_HEADER = [
  '-- Generated from the stream declarations in src/streams/ by `npm run sql`; do not edit by hand.',
  '-- engage-etl applies the same statements when it opens a database; bookkeeping tables are in sql/*.sql.',
].join('\n');

export function schemaSql(specs: readonly TableSpec[]): string {
  return `${GENERATED_SQL_HEADER}\n\n${specs.map((spec) => createTableSql(spec)).join('\n\n')}\n`;
}
