// campaign_series: GET /campaigns/data_series, one daily series per listed campaign: its totals in one table, and per
// channel and message variation the statistics every channel has (typed) plus the channel's own (JSON) in another.
// A re-fetched day replaces that day's variation rows.
import { CAMPAIGN_VARIATION_COUNTS, fetchCampaignSeries } from '../api/campaign-series.js';
import { ENDPOINTS, MAX_CAMPAIGN_SERIES_LENGTH } from '../api/endpoints.js';
import type { CampaignSeriesPoint } from '../api/types.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import type { IdSelection } from './option-reader.js';
import { seriesStream } from './stream-declaration.js';
import { CAMPAIGN_LIST, idListDiscovery } from './workspace-lists.js';

export interface CampaignSeriesOptions {
  /** Campaign ids, or `all`: every campaign the list shows (archived ones left out). */
  campaigns: IdSelection;
}

const totalsTable = defineTable({
  name: 'campaign_series',
  description: 'A campaign\'s totals per UTC day.',
  columns: [
    col('campaign_id', 'VARCHAR'), col('time', 'TIMESTAMP'), col('unique_recipients', 'BIGINT'), col('conversions', 'BIGINT'),
    col('conversions1', 'BIGINT'), col('conversions2', 'BIGINT'), col('conversions3', 'BIGINT'), col('revenue', 'DOUBLE'),
  ],
  key: ['campaign_id', 'time'],
  partitionSource: 'time',
});

const messagesTable = defineTable({
  name: 'campaign_message_series',
  description: 'A campaign message variation\'s statistics per UTC day and channel; `channel_stats` holds the fields only that channel has.',
  columns: [
    col('campaign_id', 'VARCHAR'), col('time', 'TIMESTAMP'), col('channel', 'VARCHAR'), col('variation_api_id', 'VARCHAR'),
    col('sent', 'BIGINT'), col('opens', 'BIGINT'), col('unique_opens', 'BIGINT'), col('clicks', 'BIGINT'), col('unique_clicks', 'BIGINT'),
    col('bounces', 'BIGINT'), col('unsubscribes', 'BIGINT'), col('delivered', 'BIGINT'), col('channel_stats', 'JSON'),
  ],
  key: ['campaign_id', 'time', 'channel', 'variation_api_id'],
  partitionSource: 'time',
});

const TYPED = new Set<string>(['variation_api_id', ...CAMPAIGN_VARIATION_COUNTS]);

function dayRows(campaignId: string, time: Date, day: Omit<CampaignSeriesPoint, 'time'>) {
  const messages: RowOf<typeof messagesTable>[] = [];
  for (const [channel, list] of Object.entries(day.messages)) {
    for (const m of list) {
      messages.push({
        campaign_id: campaignId, time, channel, variation_api_id: m.variation_api_id,
        sent: m.sent, opens: m.opens, unique_opens: m.unique_opens, clicks: m.clicks, unique_clicks: m.unique_clicks,
        bounces: m.bounces, unsubscribes: m.unsubscribes, delivered: m.delivered,
        channel_stats: Object.fromEntries(Object.entries(m).filter(([k]) => !TYPED.has(k))),
      });
    }
  }
  return {
    upserts: [
      rowsOf(totalsTable, [{
        campaign_id: campaignId, time, unique_recipients: day.unique_recipients, conversions: day.conversions,
        conversions1: day.conversions1, conversions2: day.conversions2, conversions3: day.conversions3, revenue: day.revenue,
      }]),
      rowsOf(messagesTable, messages),
    ],
    replaces: [{ table: messagesTable.name, columns: ['campaign_id', 'time'], values: [[campaignId, time]] }],
  };
}

export const campaignSeriesStream = seriesStream({
  kind: 'series',
  name: 'campaign_series',
  description: 'Daily statistics of each listed campaign, with one row per channel and message variation.',
  endpoint: ENDPOINTS.campaignsDataSeries,
  tables: [totalsTable, messagesTable],
  maxUnits: MAX_CAMPAIGN_SERIES_LENGTH,
  options: {
    keys: ['campaigns'],
    example: '{ campaigns: all }',
    read: (r): CampaignSeriesOptions => ({ campaigns: r.idSelection('campaigns', 'campaigns: [cmp_1]') }),
  },
  discovery: idListDiscovery<CampaignSeriesOptions>(CAMPAIGN_LIST, (o) => o.campaigns, (o, campaigns) => ({ ...o, campaigns })),
  series: (o) =>
    o.campaigns.ids.map((campaignId) => ({
      dims: { campaign_id: campaignId },
      unit: 'day' as const,
      fetch: (client, w) => fetchCampaignSeries(client, { campaignId, length: w.length, endingAt: w.endingAt }),
      rows: (time: Date, value: unknown) => dayRows(campaignId, time, value as Omit<CampaignSeriesPoint, 'time'>),
    })),
});
