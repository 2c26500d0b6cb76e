// POST /messages/schedule/delete (4.17): a scheduled message becomes cancelled; an already sent one cannot be.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import { CREATED_SUCCESS, isPlainObject, show } from './body-checks.js';

function handle(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const id = isPlainObject(req.body) ? req.body['schedule_id'] : undefined;
  if (typeof id !== 'string' || id === '')
    return badRequest(`schedule_id is required and must be a non-empty string, got ${show(id)}`);
  const schedule = ctx.workspace.people.scheduledMessages.get(id);
  if (!schedule)
    return {
      status: 404,
      body: {
        message: `schedule_id ${show(id)} not found: use the schedule_id returned when the schedule was created`,
      },
    };
  if (schedule.status === 'sent')
    return badRequest(
      `schedule ${show(id)} was already sent at ${schedule.send_at}: only messages not yet sent can be cancelled`,
    );
  // Cancelling twice succeeds, so a client retrying after a lost answer does not fail.
  schedule.status = 'cancelled';
  return CREATED_SUCCESS;
}

export const scheduleDeleteRoute: Route = { endpoint: ENDPOINTS.scheduleDelete, handle };
