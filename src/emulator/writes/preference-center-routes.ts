// PUT /preference_center/v1/:id (4.9) and its POST alias: replace the page HTML, title, state and options of an existing
// preference center; answers 200 with its id and timestamps (updated_at = emulator clock).
import { ENDPOINTS } from '../../api/endpoints.js';
import type { PreferenceCenterUpdateBody } from '../../api/types.js';
import { DEFAULT_PREFERENCE_CENTER_TITLE } from '../people/preference-centers.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import { isPlainObject, show } from './body-checks.js';

function handle(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const id = req.params['id'] ?? '';
  const center = ctx.workspace.people.preferenceCenters.get(id);
  if (!center) {
    const known = [...ctx.workspace.people.preferenceCenters.keys()].join(', ');
    return { status: 404, body: { message: `Preference center ${show(id)} not found (known: ${known})` } };
  }
  const body = req.body;
  if (!isPlainObject(body))
    return badRequest(
      `the body must be a JSON object with preference_center_page_html and confirmation_page_html, got ${show(body)}`,
    );
  const page = body['preference_center_page_html'];
  const confirmation = body['confirmation_page_html'];
  if (typeof page !== 'string' || page === '')
    return badRequest(`preference_center_page_html is required and must be a non-empty string, got ${show(page)}`);
  if (typeof confirmation !== 'string' || confirmation === '')
    return badRequest(`confirmation_page_html is required and must be a non-empty string, got ${show(confirmation)}`);
  const title = body['preference_center_title'];
  if (title !== undefined && typeof title !== 'string')
    return badRequest(`preference_center_title must be a string, got ${show(title)}`);
  const name = body['name'];
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    return badRequest(`name must be a non-empty string, got ${show(name)}`);
  const state = body['state'];
  if (state !== undefined && state !== 'active' && state !== 'draft')
    return badRequest(`state must be "active" or "draft", got ${show(state)}`);
  const options = body['options'];
  if (options !== undefined) {
    const viewport = isPlainObject(options) ? options['meta-viewport-content'] : undefined;
    const extra = isPlainObject(options) ? Object.keys(options).filter((k) => k !== 'meta-viewport-content') : [];
    if (!isPlainObject(options) || (viewport !== undefined && typeof viewport !== 'string') || extra.length > 0) {
      return badRequest(
        `options must be an object whose only key is "meta-viewport-content" (a string), got ${show(options)}`,
      );
    }
  }

  center.preference_center_page_html = page;
  center.confirmation_page_html = confirmation;
  center.preference_center_title = title ?? DEFAULT_PREFERENCE_CENTER_TITLE;
  if (typeof name === 'string') center.name = name;
  if (state !== undefined) center.state = state;
  if (isPlainObject(options)) {
    center.options =
      typeof options['meta-viewport-content'] === 'string'
        ? { 'meta-viewport-content': options['meta-viewport-content'] }
        : {};
  }
  center.updated_at = ctx.clock.now().toISO() ?? center.updated_at;
  const answer: PreferenceCenterUpdateBody = {
    preference_center_api_id: center.preference_center_api_id,
    created_at: center.created_at,
    updated_at: center.updated_at,
    message: 'success',
  };
  return { status: 200, body: answer };
}

export const preferenceCenterUpdateRoute: Route = { endpoint: ENDPOINTS.preferenceCenterUpdate, handle };
export const preferenceCenterUpdatePostRoute: Route = { endpoint: ENDPOINTS.preferenceCenterUpdatePost, handle };
