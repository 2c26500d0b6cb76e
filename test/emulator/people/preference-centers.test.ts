import { describe, expect, it } from 'vitest';
import {
  preferenceCenterUpdatePostRoute,
  preferenceCenterUpdateRoute,
} from '../../../src/emulator/writes/preference-center-routes.js';
import { bodyOf, makeKit } from './people-test-kit.js';

const PAGES = { preference_center_page_html: '<p>prefs</p>', confirmation_page_html: '<p>ok</p>' };

describe('PUT /preference_center/v1/:id (and its POST alias)', () => {
  it('updates the center, moves its state, and answers 200 with its id, created_at and updated_at from the emulator clock', () => {
    const kit = makeKit();
    kit.clock.set('2025-07-01T08:30:00Z');
    const res = kit.call(
      preferenceCenterUpdateRoute,
      { ...PAGES, state: 'draft', name: 'Renamed', options: { 'meta-viewport-content': 'width=device-width' } },
      { params: { id: 'pc_1' } },
    );
    expect(res).toEqual({
      status: 200,
      body: {
        preference_center_api_id: 'pc_1',
        created_at: '2024-01-10T09:00:00.000Z',
        updated_at: '2025-07-01T08:30:00.000Z',
        message: 'success',
      },
    });
    expect(kit.workspace.people.preferenceCenters.get('pc_1')).toMatchObject({
      state: 'draft',
      name: 'Renamed',
      preference_center_page_html: '<p>prefs</p>',
      options: { 'meta-viewport-content': 'width=device-width' },
    });
  });

  it('defaults the title to "Preference Center" when omitted, and keeps state and name when not given', () => {
    const kit = makeKit();
    expect(kit.call(preferenceCenterUpdatePostRoute, PAGES, { params: { id: 'pc_1' } }).status).toBe(200);
    expect(kit.workspace.people.preferenceCenters.get('pc_1')).toMatchObject({
      preference_center_title: 'Preference Center',
      state: 'active',
      name: 'Newsletter preferences',
    });
  });

  it('answers 404 for an unknown center and 400 for a missing html, a bad state or bad options', () => {
    const kit = makeKit();
    expect(kit.call(preferenceCenterUpdateRoute, PAGES, { params: { id: 'pc_9' } }).status).toBe(404);
    expect(
      bodyOf(kit.call(preferenceCenterUpdateRoute, { confirmation_page_html: 'x' }, { params: { id: 'pc_1' } }))[
        'message'
      ],
    ).toMatch(/preference_center_page_html is required/);
    expect(kit.call(preferenceCenterUpdateRoute, { ...PAGES, state: 'live' }, { params: { id: 'pc_1' } }).status).toBe(
      400,
    );
    expect(
      kit.call(preferenceCenterUpdateRoute, { ...PAGES, options: { other: 1 } }, { params: { id: 'pc_1' } }).status,
    ).toBe(400);
    expect(kit.workspace.people.preferenceCenters.get('pc_1')?.state).toBe('active');
  });
});
