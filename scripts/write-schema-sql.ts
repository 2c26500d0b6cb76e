// `npm run sql`: writes sql/generated/tables.sql from the stream declarations (the DDL engage-etl applies itself).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSqlDir } from '../src/load/sql-dir.js';
import { schemaSql } from '../src/load/schema-sql.js';
import { TABLE_SPECS } from '../src/streams/table-specs.js';

const file = join(findSqlDir(), 'generated', 'tables.sql');
writeFileSync(file, schemaSql(TABLE_SPECS));
process.stdout.write(`wrote ${file}\n`);
