// POST /users/track (4.2): up to 75 user attributes objects per call, each applied by the rules of spec 2.2.
// Answers 201 with attributes_processed, and an `errors` array (live shape) when some objects or attributes had problems.
import { ENDPOINTS } from '../../api/endpoints.js';
import { applyAttributesObject } from '../people/user-attributes-object.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import { isPlainObject, show } from './body-checks.js';

/** Attribute objects per tracking call (spec 2.2 rule 5, 8). */
export const MAX_ATTRIBUTE_OBJECTS = 75;

export interface TrackError {
  /** What went wrong, naming the attribute and the value. */
  type: string;
  input_array: 'attributes';
  /** Index of the object in the request's `attributes` array. */
  index: number;
}

function handle(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const body = req.body;
  if (!isPlainObject(body))
    return badRequest(`the body must be a JSON object with an attributes array, got ${show(body)}`);
  for (const key of ['events', 'purchases']) {
    if (body[key] !== undefined)
      return badRequest(
        `${key} are not emulated (the spec shows only attributes for /users/track): send them without ${key}`,
      );
  }
  const attributes = body['attributes'];
  if (!Array.isArray(attributes))
    return badRequest(`attributes must be an array of user attributes objects, got ${show(attributes)}`);
  if (attributes.length === 0)
    return badRequest(`attributes is empty: send between 1 and ${MAX_ATTRIBUTE_OBJECTS} objects`);
  if (attributes.length > MAX_ATTRIBUTE_OBJECTS) {
    return badRequest(
      `attributes has ${attributes.length} objects, more than the ${MAX_ATTRIBUTE_OBJECTS} allowed per call: split it into batches of ${MAX_ATTRIBUTE_OBJECTS}`,
    );
  }
  const nowMs = ctx.clock.nowMs();
  let processed = 0;
  const errors: TrackError[] = [];
  for (const [index, obj] of attributes.entries()) {
    const outcome = applyAttributesObject(ctx.workspace.people, obj, nowMs);
    if (outcome.processed) processed++;
    for (const type of outcome.problems) errors.push({ type, input_array: 'attributes', index });
  }
  return {
    status: 201,
    body: { message: 'success', attributes_processed: processed, ...(errors.length > 0 ? { errors } : {}) },
  };
}

export const usersTrackRoute: Route = { endpoint: ENDPOINTS.usersTrack, handle };
