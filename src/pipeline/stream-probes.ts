// One cheap request per stream, for `engage-etl check`, derived from the stream's declaration by its kind (no table of
// streams beside the registry): a series asks for one unit of its first series, a per-id stream for its first id, a
// paged list for its first page. The endpoint, hence the permission a key needs, is the declaration's.
import type { ApiClient } from '../api/api-client.js';
import { splitWindows } from '../extract/windows.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import { addUnits, floorUnit, parseUtcInstant } from '../time/utc-time.js';

/**
 * Send the stream's probe through `client`; resolves when the server answered it, throws the client's error otherwise.
 * `endingAt` is a complete past instant (ISO 8601).
 */
export async function probeStream(client: ApiClient, pipeline: PipelineDefinition, stream: StreamName, endingAt: string): Promise<void> {
  const decl = streamDeclaration(stream);
  const options = pipeline.streams[stream];
  if (options === undefined) throw new Error(`internal: ${stream} is not in the pipeline ${pipeline.name}`);
  switch (decl.kind) {
    case 'series': {
      const [series] = decl.series(options);
      if (!series) throw new Error(`internal: ${stream} declares no series to probe`);
      const instant = parseUtcInstant(endingAt);
      if (!instant) throw new Error(`internal: ${JSON.stringify(endingAt)} is not an ISO 8601 instant`);
      const end = floorUnit(instant, series.unit);
      const [window] = splitWindows({ unit: series.unit, start: addUnits(end, -1, series.unit), end }, 1);
      await series.fetch(client, window!);
      return;
    }
    case 'per_id': {
      const [id] = decl.ids(options);
      if (id === undefined) throw new Error(`internal: ${stream} has no id to probe`);
      await decl.fetch(client, id, options);
      return;
    }
    case 'paged_list':
      await client.request<unknown>({ endpoint: decl.endpoint });
      return;
  }
}
