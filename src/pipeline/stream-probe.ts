// One cheap call per stream, for `engage-etl check`, derived from the declaration alone: a series asks for its first
// series' last complete unit, an id-by-id stream for its first id, a list for its pages. What it proves: the base URL
// answers, the key is valid and carries the permission the stream's endpoint needs.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { addUnits, floorUnit, isoSeconds } from '../extract/windows.js';
import type { Window } from '../extract/windows.js';
import type { StreamDeclaration } from '../streams/stream-declaration.js';

/** What the probe of one stream asked, for the report. */
export interface ProbeCall {
  /** `GET /segments/data_series`, and the series or id probed. */
  endpoint: string;
  target: string;
}

/**
 * Sends the probe of `stream` configured with `options`; resolves with what it asked, rejects with the client's error
 * (a FatalApiError with status 403 when the key lacks the stream's permission).
 */
export async function probeStream(client: ApiClient, stream: StreamDeclaration, options: unknown, until: DateTime): Promise<ProbeCall> {
  const endpoint = `${stream.endpoint.method} ${stream.endpoint.path}`;
  switch (stream.kind) {
    case 'series': {
      // A series built from stored values (events: all) has none here: the probe reads no database.
      const [first] = stream.series(options, []);
      if (!first) return { endpoint, target: 'no series configured' };
      const end = floorUnit(until, first.unit);
      const window: Window = { unit: first.unit, start: addUnits(end, -1, first.unit), end, length: 1, endingAt: isoSeconds(end.minus(1000)) };
      await first.fetch(client, window);
      const asked = first.endpoint ? `${first.endpoint.method} ${first.endpoint.path}` : endpoint;
      return { endpoint: asked, target: Object.entries(first.dims).map(([k, v]) => `${k}=${v}`).join(', ') || 'the series' };
    }
    case 'per_id': {
      const [id] = stream.ids(options);
      if (id === undefined) return { endpoint, target: 'no id configured' };
      try {
        await stream.fetch(client, id, options);
      } catch (err) {
        if (stream.tolerate?.(err, id) === undefined) throw err;
      }
      return { endpoint, target: id };
    }
    case 'paged_list':
      await stream.fetch(client, options, until.toJSDate());
      return { endpoint, target: 'every page' };
  }
}
