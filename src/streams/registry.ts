// The registry: every stream engage-etl knows, in the order runs process them. Config, plan, fetch, load, export, status
// and `plan` read this list; adding a stream is one file under streams/ and one line here.
import type { TableSpec } from '../load/table-definition.js';
import { campaignsStream } from './campaigns.js';
import { campaignSeriesStream } from './campaign-series.js';
import { canvasDetailsStream } from './canvas-details.js';
import { canvasSummaryStream } from './canvas-summary.js';
import { contentBlocksStream } from './content-blocks.js';
import { customEventsStream } from './custom-events.js';
import { dataIntegrationsStream } from './data-integrations.js';
import { emailTemplatesStream } from './email-templates.js';
import { productsStream } from './products.js';
import { eventCountsStream } from './event-counts.js';
import { kpisStream } from './kpis.js';
import { purchaseQuantityStream } from './purchase-quantity.js';
import { revenueStream } from './revenue.js';
import { segmentSizeStream } from './segment-size.js';
import { segmentsStream } from './segments.js';
import { sessionsStream } from './sessions.js';
import type { StreamDeclaration } from './stream-declaration.js';
import { listedObjectsTable } from './workspace-lists.js';

export const STREAMS = [
  purchaseQuantityStream,
  revenueStream,
  sessionsStream,
  kpisStream,
  segmentSizeStream,
  customEventsStream,
  eventCountsStream,
  campaignSeriesStream,
  canvasSummaryStream,
  canvasDetailsStream,
  emailTemplatesStream,
  contentBlocksStream,
  campaignsStream,
  segmentsStream,
  productsStream,
  dataIntegrationsStream,
] as const;

export type AnyStream = (typeof STREAMS)[number];
export type StreamName = AnyStream['name'];
/** The tables of the streams, and discovery's store of list entries. */
export type TableName = AnyStream['tables'][number]['name'] | typeof listedObjectsTable.name;

/** The normalized options of one stream, as its declaration reads them. */
export type OptionsOf<N extends StreamName> = ReturnType<Extract<AnyStream, { name: N }>['options']['read']>;

/** The streams a pipeline declares, by name; an absent key means the stream is not part of the pipeline. */
export type StreamsConfig = { [N in StreamName]?: OptionsOf<N> };

/** Every stream name, in run order. */
export const STREAM_NAMES: readonly StreamName[] = STREAMS.map((s) => s.name);

const BY_NAME = new Map<string, StreamDeclaration>(STREAMS.map((s) => [s.name, s as StreamDeclaration]));

export function isStreamName(name: string): name is StreamName {
  return BY_NAME.has(name);
}

/** The declaration of a stream, typed loosely for the generic machinery. */
export function streamDeclaration(name: StreamName): StreamDeclaration {
  return BY_NAME.get(name)!;
}

/** Every table of every stream, in registry order, then discovery's list store. */
export const STREAM_TABLE_SPECS: readonly TableSpec[] = [
  ...STREAMS.flatMap((s) => [...s.tables] as TableSpec[]),
  listedObjectsTable,
];
