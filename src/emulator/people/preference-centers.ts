// Preference centers of the emulated workspace (spec 2.5), updated by PUT/POST /preference_center/v1/:id (4.9).

export type PreferenceCenterState = 'active' | 'draft';

export interface PreferenceCenter {
  readonly preference_center_api_id: string;
  name: string;
  preference_center_title: string;
  preference_center_page_html: string;
  confirmation_page_html: string;
  state: PreferenceCenterState;
  options: { 'meta-viewport-content'?: string };
  readonly created_at: string;
  updated_at: string;
}

/** The title the platform uses when an update omits `preference_center_title` (spec 4.9). */
export const DEFAULT_PREFERENCE_CENTER_TITLE = 'Preference Center';

export function generatePreferenceCenters(): PreferenceCenter[] {
  return [
    {
      preference_center_api_id: 'pc_1',
      name: 'Newsletter preferences',
      preference_center_title: 'Choose your newsletters',
      preference_center_page_html: '<html><body>{{subscription_groups}}</body></html>',
      confirmation_page_html: '<html><body>Saved.</body></html>',
      state: 'active',
      options: {},
      created_at: '2024-01-10T09:00:00.000Z',
      updated_at: '2024-03-02T15:30:00.000Z',
    },
    {
      preference_center_api_id: 'pc_2',
      name: 'SMS preferences',
      preference_center_title: DEFAULT_PREFERENCE_CENTER_TITLE,
      preference_center_page_html: '<html><body>SMS</body></html>',
      confirmation_page_html: '<html><body>Done.</body></html>',
      state: 'draft',
      options: { 'meta-viewport-content': 'width=device-width' },
      created_at: '2024-05-20T08:00:00.000Z',
      updated_at: '2024-05-20T08:00:00.000Z',
    },
  ];
}
