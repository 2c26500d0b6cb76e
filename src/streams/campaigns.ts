// campaigns: GET /campaigns/list + /campaigns/details. Every listed campaign (archived ones with
// include_archived), its details re-read only when the list's last_edited moves; message variations in their own table,
// replaced with each re-read so a variation removed upstream disappears here too.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchCampaignDetails } from '../api/metadata-endpoints.js';
import { stringList, stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import type { IdSelection } from './option-reader.js';
import { perIdStream } from './stream-declaration.js';
import { CAMPAIGN_LIST, idListDiscovery } from './workspace-lists.js';

export interface CampaignsOptions {
  /** Always every listed campaign: the stream is whole-workspace by nature. */
  campaigns: IdSelection;
  /** List archived campaigns too. @default false */
  includeArchived: boolean;
}

const campaignsTable = defineTable({
  name: 'campaigns',
  description: 'Campaigns: name, flags, schedule, channels, first and last send, tags, teams and conversion behaviors.',
  columns: [
    col('campaign_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('description', 'VARCHAR'),
    col('created_at', 'TIMESTAMP'),
    col('updated_at', 'TIMESTAMP'),
    col('last_edited', 'TIMESTAMP'),
    col('archived', 'BOOLEAN'),
    col('draft', 'BOOLEAN'),
    col('enabled', 'BOOLEAN'),
    col('is_api_campaign', 'BOOLEAN'),
    col('schedule_type', 'VARCHAR'),
    col('channels', 'VARCHAR[]'),
    col('first_sent', 'TIMESTAMP'),
    col('last_sent', 'TIMESTAMP'),
    col('tags', 'VARCHAR[]'),
    col('teams', 'VARCHAR[]'),
    col('conversion_behaviors', 'JSON'),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['campaign_id'],
  history: { validFrom: 'updated_at' },
});

const messagesTable = defineTable({
  name: 'campaign_messages',
  description:
    "Message variations of each campaign: channel, name and the channel's own fields (subject, alert, body, url…).",
  columns: [
    col('campaign_id', 'VARCHAR'),
    col('variation_id', 'VARCHAR'),
    col('channel', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('message', 'JSON'),
  ],
  key: ['campaign_id', 'variation_id'],
  history: {},
});

function booleanOrNull(raw: unknown): boolean | null {
  return typeof raw === 'boolean' ? raw : null;
}

export const campaignsStream = perIdStream({
  kind: 'per_id',
  name: 'campaigns',
  description:
    'Every campaign the workspace lists, with its details and message variations (re-read when last_edited moves).',
  endpoint: ENDPOINTS.campaignsDetails,
  tables: [campaignsTable, messagesTable],
  options: {
    keys: ['include_archived'],
    example: '{ include_archived: true }',
    read: (r): CampaignsOptions => ({
      campaigns: { all: true, ids: [] },
      includeArchived: r.boolean('include_archived'),
    }),
  },
  discovery: idListDiscovery<CampaignsOptions>(
    CAMPAIGN_LIST,
    (o) => o.campaigns,
    (o, campaigns) => ({ ...o, campaigns }),
    (o) => o.includeArchived,
  ),
  ids: (o) => o.campaigns.ids,
  fetch: async (client, campaignId, _o, listed) => {
    const d = await fetchCampaignDetails(client, campaignId);
    return {
      upserts: [
        rowsOf(campaignsTable, [
          {
            campaign_id: campaignId,
            name: stringOrNull(d.name),
            description: stringOrNull(d.description),
            created_at: timestampOrNull(d.created_at),
            updated_at: timestampOrNull(d.updated_at),
            last_edited: timestampOrNull(listed?.attributes['last_edited']),
            archived: booleanOrNull(d.archived),
            draft: booleanOrNull(d.draft),
            enabled: booleanOrNull(d.enabled),
            is_api_campaign: booleanOrNull(listed?.attributes['is_api_campaign']),
            schedule_type: stringOrNull(d.schedule_type),
            channels: stringList(d.channels),
            first_sent: timestampOrNull(d.first_sent),
            last_sent: timestampOrNull(d.last_sent),
            tags: stringList(d.tags),
            teams: stringList(d.teams),
            conversion_behaviors: d.conversion_behaviors ?? [],
            ...discoveredValues(listed),
          },
        ]),
        rowsOf(
          messagesTable,
          Object.entries(d.messages ?? {}).map(([variationId, m]) => ({
            campaign_id: campaignId,
            variation_id: variationId,
            channel: stringOrNull(m.channel),
            name: stringOrNull(m.name),
            message: m,
          })),
        ),
      ],
      replaces: [{ table: messagesTable.name, columns: ['campaign_id'], values: [[campaignId]] }],
    };
  },
});
