// Read route of a segment's details: name, descriptions, creation and latest edit, tags and teams. Archived segments
// still answer (only the list leaves them out); a segment not yet created is unknown.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { SegmentDetailsBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { iso, lastEditAt } from './lifecycle.js';
import { ParamError, readRoute } from './query-params.js';
import { segmentAt } from './workspace-listing.js';

export const segmentDetailsRoute: Route = readRoute(ENDPOINTS.segmentsDetails, (req, ctx) => {
  const raw = req.query.get('segment_id');
  if (raw === null || raw === '')
    throw new ParamError('segment_id is required: the API identifier of a segment (see /segments/list)');
  const nowMs = ctx.clock.nowMs();
  const segment = segmentAt(ctx.workspace.analytics, raw, nowMs);
  if (!segment)
    throw new ParamError(
      `segment_id ${JSON.stringify(raw.slice(0, 60))} is not a segment of this workspace (see /segments/list)`,
    );
  const body: SegmentDetailsBody = {
    name: segment.name,
    description: segment.description,
    text_description: `Users in ${segment.name}`,
    created_at: iso(segment.lifecycle.createdMs),
    updated_at: iso(lastEditAt(segment.lifecycle, nowMs)),
    tags: [...segment.tags],
    teams: [...segment.teams],
    message: 'success',
  };
  return { status: 200, body };
});
