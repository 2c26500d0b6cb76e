// The registry of every warehouse table: columns with their DuckDB types, key and month partition. The merge, the Parquet
// export and the tests all read this one list; sql/*.sql holds the matching DDL and a test keeps the two in step.
import { FatalError } from '../errors.js';

/** DuckDB column types used by the warehouse. JSON columns take any JS value and store its JSON text. */
export type ColumnType = 'VARCHAR' | 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP' | 'DATE' | 'VARCHAR[]' | 'JSON';

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  /** On update the stored value is kept and a new value does not count as a change (custom_events.first_seen_at). */
  readonly keepOnUpdate?: boolean;
  /** The only values the column accepts (besides NULL). */
  readonly allowed?: readonly string[];
}

export interface TableSpec {
  readonly name: TableName;
  /** Key and value columns in table order; the `_` bookkeeping columns follow them. */
  readonly columns: readonly ColumnSpec[];
  readonly key: readonly string[];
  /** The TIMESTAMP/DATE column whose month (`YYYY-MM`) names the row's Parquet partition; absent for whole-table files. */
  readonly partitionSource?: string;
}

export const TABLE_NAMES = [
  'purchase_quantity',
  'revenue',
  'sessions',
  'segment_size',
  'custom_events',
  'canvas_summary',
  'canvas_variant_summary',
  'canvas_step_summary',
  'canvas_step_messages',
  'canvases',
  'canvas_variants',
  'canvas_steps',
  'email_templates',
  'content_blocks',
  'data_integrations',
] as const;

export type TableName = (typeof TABLE_NAMES)[number];

/** Bookkeeping columns every table carries after its data columns. */
export const BOOKKEEPING_COLUMNS: readonly ColumnSpec[] = [
  { name: '_loaded_at', type: 'TIMESTAMP' },
  { name: '_run_id', type: 'VARCHAR' },
];

/** Name of the virtual column holding the partition month of a partitioned table; it is the table's last column. */
export const PARTITION_COLUMN = '_month';

/** The partition value recorded for tables exported as a single file. */
export const WHOLE_TABLE_PARTITION = '';

function c(name: string, type: ColumnType, keepOnUpdate?: boolean): ColumnSpec {
  return keepOnUpdate ? { name, type, keepOnUpdate } : { name, type };
}

/** The series unit column: the API knows days and hours only. */
const UNIT: ColumnSpec = { name: 'unit', type: 'VARCHAR', allowed: ['day', 'hour'] };

const SPECS: readonly TableSpec[] = [
  {
    name: 'purchase_quantity',
    columns: [c('app_id', 'VARCHAR'), c('product', 'VARCHAR'), UNIT, c('time', 'TIMESTAMP'), c('purchase_quantity', 'BIGINT')],
    key: ['app_id', 'product', 'unit', 'time'],
    partitionSource: 'time',
  },
  {
    name: 'revenue',
    columns: [c('app_id', 'VARCHAR'), c('product', 'VARCHAR'), UNIT, c('time', 'TIMESTAMP'), c('revenue', 'DOUBLE')],
    key: ['app_id', 'product', 'unit', 'time'],
    partitionSource: 'time',
  },
  {
    name: 'sessions',
    columns: [c('app_id', 'VARCHAR'), c('segment_id', 'VARCHAR'), UNIT, c('time', 'TIMESTAMP'), c('sessions', 'BIGINT')],
    key: ['app_id', 'segment_id', 'unit', 'time'],
    partitionSource: 'time',
  },
  {
    name: 'segment_size',
    columns: [c('segment_id', 'VARCHAR'), c('time', 'TIMESTAMP'), c('size', 'BIGINT')],
    key: ['segment_id', 'time'],
    partitionSource: 'time',
  },
  {
    // Partitioned by the month of first_seen_at: it never changes once stored, so a row never moves between files.
    name: 'custom_events',
    columns: [c('name', 'VARCHAR'), c('first_seen_at', 'TIMESTAMP', true), c('last_seen_at', 'TIMESTAMP')],
    key: ['name'],
    partitionSource: 'first_seen_at',
  },
  {
    name: 'canvas_summary',
    columns: [
      c('canvas_id', 'VARCHAR'), c('day', 'DATE'), c('name', 'VARCHAR'), c('entries', 'BIGINT'), c('conversions', 'BIGINT'),
      c('conversions_by_entry_time', 'BIGINT'), c('revenue', 'DOUBLE'),
    ],
    key: ['canvas_id', 'day'],
    partitionSource: 'day',
  },
  {
    name: 'canvas_variant_summary',
    columns: [
      c('canvas_id', 'VARCHAR'), c('day', 'DATE'), c('variant_id', 'VARCHAR'), c('name', 'VARCHAR'), c('entries', 'BIGINT'),
      c('conversions', 'BIGINT'), c('revenue', 'DOUBLE'),
    ],
    key: ['canvas_id', 'day', 'variant_id'],
    partitionSource: 'day',
  },
  {
    name: 'canvas_step_summary',
    columns: [
      c('canvas_id', 'VARCHAR'), c('day', 'DATE'), c('step_id', 'VARCHAR'), c('name', 'VARCHAR'), c('conversions', 'BIGINT'),
      c('conversions_by_entry_time', 'BIGINT'), c('revenue', 'DOUBLE'),
    ],
    key: ['canvas_id', 'day', 'step_id'],
    partitionSource: 'day',
  },
  {
    name: 'canvas_step_messages',
    columns: [
      c('canvas_id', 'VARCHAR'), c('day', 'DATE'), c('step_id', 'VARCHAR'), c('channel', 'VARCHAR'), c('message_index', 'INTEGER'),
      c('sent', 'BIGINT'), c('opens', 'BIGINT'), c('influenced_opens', 'BIGINT'), c('bounces', 'BIGINT'),
    ],
    key: ['canvas_id', 'day', 'step_id', 'channel', 'message_index'],
    partitionSource: 'day',
  },
  {
    name: 'canvases',
    columns: [
      c('canvas_id', 'VARCHAR'), c('name', 'VARCHAR'), c('description', 'VARCHAR'), c('created_at', 'TIMESTAMP'),
      c('updated_at', 'TIMESTAMP'), c('archived', 'BOOLEAN'), c('draft', 'BOOLEAN'), c('schedule_type', 'VARCHAR'),
      c('first_entry', 'TIMESTAMP'), c('last_entry', 'TIMESTAMP'), c('channels', 'VARCHAR[]'), c('tags', 'VARCHAR[]'),
      c('teams', 'VARCHAR[]'),
    ],
    key: ['canvas_id'],
  },
  {
    name: 'canvas_variants',
    columns: [
      c('canvas_id', 'VARCHAR'), c('variant_id', 'VARCHAR'), c('name', 'VARCHAR'), c('first_step_ids', 'VARCHAR[]'),
      c('first_step_id', 'VARCHAR'),
    ],
    key: ['canvas_id', 'variant_id'],
  },
  {
    name: 'canvas_steps',
    columns: [
      c('canvas_id', 'VARCHAR'), c('step_id', 'VARCHAR'), c('name', 'VARCHAR'), c('type', 'VARCHAR'), c('next_step_ids', 'VARCHAR[]'),
      c('next_paths', 'JSON'), c('channels', 'VARCHAR[]'), c('messages', 'JSON'),
    ],
    key: ['canvas_id', 'step_id'],
  },
  {
    name: 'email_templates',
    columns: [
      c('email_template_id', 'VARCHAR'), c('template_name', 'VARCHAR'), c('description', 'VARCHAR'), c('subject', 'VARCHAR'),
      c('preheader', 'VARCHAR'), c('body', 'VARCHAR'), c('plaintext_body', 'VARCHAR'), c('should_inline_css', 'BOOLEAN'),
      c('tags', 'VARCHAR'), c('created_at', 'TIMESTAMP'), c('updated_at', 'TIMESTAMP'),
    ],
    key: ['email_template_id'],
  },
  {
    name: 'content_blocks',
    columns: [
      c('content_block_id', 'VARCHAR'), c('name', 'VARCHAR'), c('content', 'VARCHAR'), c('description', 'VARCHAR'),
      c('content_type', 'VARCHAR'), c('tags', 'VARCHAR[]'), c('created_at', 'TIMESTAMP'), c('last_edited', 'TIMESTAMP'),
      c('inclusion_count', 'BIGINT'), c('inclusion_data', 'JSON'),
    ],
    key: ['content_block_id'],
  },
  {
    name: 'data_integrations',
    columns: [
      c('integration_id', 'VARCHAR'), c('app_group_id', 'VARCHAR'), c('integration_name', 'VARCHAR'), c('integration_type', 'VARCHAR'),
      c('integration_status', 'VARCHAR'), c('contact_emails', 'VARCHAR'), c('last_updated_at', 'TIMESTAMP'),
      c('warehouse_type', 'VARCHAR'), c('last_job_start_time', 'TIMESTAMP'), c('last_job_status', 'VARCHAR'),
      c('next_scheduled_run', 'TIMESTAMP'),
    ],
    key: ['integration_id'],
  },
];

const BY_NAME = new Map<string, TableSpec>(SPECS.map((s) => [s.name, s]));

/** Every table spec, in TABLE_NAMES order. */
export const TABLE_SPECS: readonly TableSpec[] = SPECS;

export function isTableName(name: string): name is TableName {
  return BY_NAME.has(name);
}

/** The spec of a table; throws for a name outside the registry (a programming error, not user input). */
export function tableSpec(name: TableName): TableSpec {
  const spec = BY_NAME.get(name);
  if (!spec) throw new FatalError(`unknown warehouse table "${name}"; use one of: ${TABLE_NAMES.join(', ')}`);
  return spec;
}

/** Every column the table holds, in order: data, bookkeeping, and `_month` for partitioned tables. */
export function allColumnNames(spec: TableSpec): string[] {
  const names = [...spec.columns, ...BOOKKEEPING_COLUMNS].map((col) => col.name);
  if (spec.partitionSource) names.push(PARTITION_COLUMN);
  return names;
}

/** Quote an identifier for DuckDB SQL. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
