// Random query strings and bodies thrown at every route (read and write): without injected faults the emulator must
// never answer 5xx — every bad input is the client's 4xx, never a crash.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ROUTES } from '../../src/emulator/analytics/index.js';
import type { Emulator } from '../../src/emulator/server.js';
import { WRITE_ROUTES } from '../../src/emulator/writes/index.js';
import { startEmulator } from './emulator-test-helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await startEmulator({ rateLimits: false });
});
afterAll(() => em.close());

const PARAM_NAMES = [
  'length',
  'unit',
  'ending_at',
  'starting_at',
  'app_id',
  'product',
  'segment_id',
  'canvas_id',
  'page',
  'cursor',
  'email_template_id',
  'content_block_id',
  'include_inclusion_data',
  'include_variant_breakdown',
  'include_step_breakdown',
  'include_deleted_step_data',
  'filter',
  'event',
  'campaign_id',
  'include_archived',
  'sort_direction',
  'last_edit.time[gt]',
  'modified_after',
  'modified_before',
  'limit',
  'offset',
];
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -1000, max: 100_000 }).map(String),
  fc.constantFrom(
    'true',
    'false',
    'day',
    'hour',
    'app_1',
    'seg_1',
    'cv_1',
    'tpl_1',
    'cb_1',
    'cb_8',
    'gems_small',
    'cmp_1',
    'seg_101',
    'cv_101',
    'asc',
    'desc',
    '2024-06-01',
    '2024-06-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '0001-01-01',
    '1e9',
    'NaN',
    '%',
    '%E0%A4%A',
    'achievement_bought',
  ),
);
const query = fc
  .array(fc.tuple(fc.constantFrom(...PARAM_NAMES), value), { maxLength: 6 })
  .map((pairs) => new URLSearchParams(pairs).toString());
const json = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  json.map((v) => JSON.stringify(v)),
  fc
    .dictionary(
      fc.constantFrom(
        'attributes',
        'items',
        'email',
        'external_id',
        'external_ids',
        'external_id_renames',
        'subscription_group_id',
        'subscription_state',
        'phone',
        'schedule_id',
        'preference_center_page_html',
        'confirmation_page_html',
        'state',
        'subscription_groups',
        'userName',
      ),
      json,
    )
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 30 }),
);
const segment = fc.oneof(
  fc.constantFrom('restaurants', 'pc_1', 'sched_1', 'item-1', 'x'),
  fc.string({ minLength: 1, maxLength: 10 }).map(encodeURIComponent),
);

describe('fuzz', () => {
  const routes = [...READ_ROUTES, ...WRITE_ROUTES];
  it.each(routes.map((r) => [`${r.endpoint.method} ${r.endpoint.path}`, r] as const))(
    'never answers 5xx on %s',
    async (_name, route) => {
      const scim = route.endpoint.credential === 'scim_token';
      await fc.assert(
        fc.asyncProperty(query, body, fc.array(segment, { minLength: 3, maxLength: 3 }), async (q, b, segs) => {
          let i = 0;
          const path = route.endpoint.path.replace(/:\w+/g, () => segs[i++]!);
          const headers: Record<string, string> = {
            Authorization: `Bearer ${scim ? em.scimToken : em.demoApiKey}`,
            'Content-Type': 'application/json',
          };
          if (scim) headers['X-Request-Origin'] = 'fuzz';
          const res = await fetch(`${em.url}${path}${q ? `?${q}` : ''}`, {
            method: route.endpoint.method,
            headers,
            ...(route.endpoint.method === 'GET' ? {} : { body: b }),
          });
          const text = await res.text();
          expect(res.status, `${route.endpoint.method} ${path}?${q} ${b} → ${text}`).toBeLessThan(500);
          // Every answer is JSON, but for a 204 (SCIM delete), which has no body at all.
          if (res.status === 204) expect(text).toBe('');
          else expect(() => JSON.parse(text)).not.toThrow();
        }),
        { numRuns: 40, seed: 20241121 },
      );
    },
  );
});
