// Read route of custom event occurrences (`GET /events/data_series`): the window of the other series, one event by name.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { EventCountPoint, SeriesBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { ParamError, readRoute } from './query-params.js';
import { eventCounts } from './series-query.js';
import { segmentParam, windowParams } from './series-routes.js';

const NAMES_HINT = 'GET /events/list gives the names (or `engage-etl emulator --describe`)';

export const eventsDataSeriesRoute: Route = readRoute(ENDPOINTS.eventsDataSeries, (req, ctx) => {
  const names = ctx.workspace.analytics.eventNames;
  const event = req.query.get('event');
  if (event === null || event === '')
    throw new ParamError(`event is required: the name of a custom event; ${NAMES_HINT}`);
  if (!names.includes(event)) {
    const shown = JSON.stringify(event.length > 60 ? `${event.slice(0, 60)}…` : event);
    throw new ParamError(
      `event ${shown} is not a custom event of this workspace (names are case-sensitive); ${NAMES_HINT}`,
    );
  }
  const { ws, unit, nowMs, starts, app } = windowParams(req, ctx);
  const segment = segmentParam(ws, req.query, nowMs);
  const points = eventCounts(
    ws,
    event,
    { ...(app ? { app } : {}), ...(segment ? { segment } : {}) },
    unit,
    starts,
    nowMs,
  );
  const body: SeriesBody<EventCountPoint> = {
    message: 'success',
    data: points.map((p) => ({ time: p.time, count: p.value })),
  };
  return { status: 200, body };
});
