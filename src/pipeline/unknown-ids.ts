// Ids the pipeline names that the workspace's own lists, read by this run's discovery, do not have: their series fail
// without a request, as a 400 naming the id would fail them. Only lists that show every object the series endpoints
// accept are trusted: segments, and Canvases and campaigns when read with their archived ones. Products and event
// names are not checked: a product or event no longer listed may still have a history to fetch.
import type { Discovery } from './discover.js';
import { seriesGroup } from './fetch-tasks.js';
import type { SeriesPlan } from './plan.js';
import type { SeriesFailure } from './stream-failure.js';

/** The series parameter each checked list names, and the listing (see listingKey) that holds every object. */
const CHECKED: readonly { param: string; listing: string; list: string }[] = [
  { param: 'segment_id', listing: 'segments', list: '/segments/list' },
  { param: 'canvas_id', listing: 'canvases+archived', list: '/canvas/list' },
  { param: 'campaign_id', listing: 'campaigns+archived', list: '/campaigns/list' },
];

/** The series of `series` that name an id a read list does not have, each with its failure. */
export function unknownIdFailures(series: readonly SeriesPlan[], discovery: Discovery): Map<SeriesPlan, SeriesFailure> {
  const read = new Map(discovery.lists.flatMap((l) => (l.ids ? [[l.listing, l.ids] as const] : [])));
  const out = new Map<SeriesPlan, SeriesFailure>();
  for (const sp of series) {
    for (const { param, listing, list } of CHECKED) {
      const id = sp.instance.dims[param];
      const ids = read.get(listing);
      if (id === undefined || id === '*' || ids === undefined || ids.has(id)) continue;
      out.set(sp, {
        stream: sp.stream.name,
        series: seriesGroup(sp).key,
        id,
        retriable: false,
        error: `${param} ${JSON.stringify(id)} is not in the workspace's ${list} (read by this run); no request was sent for it: correct the id in the pipeline file, or use all (\`engage-etl check\` lists the unknown ids)`,
      });
      break;
    }
  }
  return out;
}
