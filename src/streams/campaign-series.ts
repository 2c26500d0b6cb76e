// campaign_series: GET /campaigns/data_series, one daily series per listed campaign: its totals in one table, and per
// channel and message variation in another, one typed column per field the platform documents for any channel (NULL
// where the channel does not report it) and `extra_stats` for the rest. A re-fetched day replaces that day's variation
// rows. Fields this version does not know are kept and warned about once a run, never a failed stream.
import {
  OPTIONAL_DAY_COUNTS,
  fetchCampaignSeries,
  type CampaignDay,
  type CampaignVariationEntry,
} from '../api/campaign-series.js';
import { CHANNEL_COUNT_FIELDS, CHANNEL_COUNTS, VARIATION_COUNT_FIELDS } from '../api/channel-stats.js';
import { ENDPOINTS, MAX_CAMPAIGN_SERIES_LENGTH } from '../api/endpoints.js';
import type { ApiClient } from '../api/api-client.js';
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
import type { Window } from '../extract/windows.js';
import { MONEY, col, defineTable, ident, rowsOf, sqlString } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import {
  CHANNEL_COUNT_COLUMNS,
  EXTRA_STATS_COLUMN,
  extraStats,
  statNotices,
  numberColumns,
} from './channel-stat-columns.js';
import type { IdSelection } from './option-reader.js';
import { campaignsStream, type CampaignsOptions } from './campaigns.js';
import { seriesStream, type PerIdStream, type SeriesInstance } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { CAMPAIGN_LIST, idListDiscovery } from './workspace-lists.js';

export interface CampaignSeriesOptions {
  /** Campaign ids, or `all`: every campaign the list shows (archived ones left out). */
  campaigns: IdSelection;
}

const totalsTable = defineTable({
  name: 'campaign_series',
  description: "A campaign's totals per UTC day; the optional ones NULL when the server leaves them out.",
  columns: [
    col('campaign_id', 'VARCHAR'),
    col('time', 'TIMESTAMP'),
    col('unique_recipients', 'BIGINT'),
    col('conversions', 'BIGINT'),
    col('conversions1', 'BIGINT'),
    col('conversions2', 'BIGINT'),
    col('conversions3', 'BIGINT'),
    col('revenue', MONEY),
    ...OPTIONAL_DAY_COUNTS.filter((f) => f.endsWith('_by_send_time')).map((f) => col(f, 'BIGINT')),
  ],
  key: ['campaign_id', 'time'],
  partitionSource: 'time',
  upgrades: [
    {
      from: [
        'campaign_id',
        'time',
        'unique_recipients',
        'conversions',
        'conversions1',
        'conversions2',
        'conversions3',
        'revenue',
      ],
    },
  ],
});

/** The columns the previous version gave every channel, and its JSON of the rest. */
const V1_TYPED = [
  'sent',
  'opens',
  'unique_opens',
  'clicks',
  'unique_clicks',
  'bounces',
  'unsubscribes',
  'delivered',
] as const;
const V1_COLUMNS = ['campaign_id', 'time', 'channel', 'variation_api_id', ...V1_TYPED, 'channel_stats'];

const messagesTable = defineTable({
  name: 'campaign_message_series',
  description:
    "A campaign message variation's statistics per UTC day and channel: one column per field the platform documents for any channel, NULL where this channel does not report it; `extra_stats` holds the fields without a column. `variation_key` is the variation_api_id, or when the server leaves it out `name:<variation_name>`, else `position:<index in the channel's list>`.",
  columns: [
    col('campaign_id', 'VARCHAR'),
    col('time', 'TIMESTAMP'),
    col('channel', 'VARCHAR'),
    col('variation_key', 'VARCHAR'),
    col('variation_api_id', 'VARCHAR'),
    col('variation_name', 'VARCHAR'),
    ...CHANNEL_COUNT_COLUMNS,
    ...VARIATION_COUNT_FIELDS.map((f) => col(f, 'BIGINT')),
    col('revenue', MONEY),
    EXTRA_STATS_COLUMN,
  ],
  key: ['campaign_id', 'time', 'channel', 'variation_key'],
  partitionSource: 'time',
  upgrades: [{ from: V1_COLUMNS, compute: v1Upgrade() }],
});

/**
 * Rows of the previous version (8 counts typed on every channel, the rest in `channel_stats`) re-split by the rule of
 * this one: a field documented for the row's channel (any documented count on a channel this version does not know)
 * moves to its column (from the old column, or from the JSON when
 * it holds a JSON number of the column's kind); an old column's value the channel does not document, and any JSON value
 * that does not move, stay in `extra_stats`. So an old row reads as the same answer fetched today would.
 */
function v1Upgrade(): Record<string, string> {
  const json = ident('channel_stats');
  const at = (f: string) => sqlString(`$."${f}"`);
  const channelIn = (channels: readonly string[]) => `${ident('channel')} IN (${channels.map(sqlString).join(', ')})`;
  // A channel this version does not know reads every documented count it carries (channel-stats.ts).
  const unknownChannel = `NOT list_contains([${Object.keys(CHANNEL_COUNTS).map(sqlString).join(', ')}], ${ident('channel')})`;
  const documentedOn = (f: string) => Object.keys(CHANNEL_COUNTS).filter((c) => CHANNEL_COUNTS[c]!.includes(f));
  const compute: Record<string, string> = { variation_key: ident('variation_api_id') };
  const patch: string[] = [];
  const moveFromJson = (f: string, cond: string, kind: 'BIGINT' | typeof MONEY) => {
    const types = kind === 'BIGINT' ? `('BIGINT', 'UBIGINT')` : `('BIGINT', 'UBIGINT', 'DOUBLE')`;
    const moves = `(${cond}) AND json_type(${json}, ${at(f)}) IN ${types}`;
    compute[f] = `CASE WHEN ${moves} THEN CAST(${json} ->> ${at(f)} AS ${kind}) END`;
    patch.push(sqlString(f), `CASE WHEN ${moves} THEN 'null'::JSON ELSE json_extract(${json}, ${at(f)}) END`);
  };
  for (const f of CHANNEL_COUNT_FIELDS) {
    const cond = `${channelIn(documentedOn(f))} OR ${unknownChannel}`;
    if ((V1_TYPED as readonly string[]).includes(f)) {
      compute[f] = `CASE WHEN ${cond} THEN ${ident(f)} END`;
      patch.push(sqlString(f), `CASE WHEN ${cond} THEN 'null'::JSON ELSE to_json(${ident(f)}) END`);
    } else moveFromJson(f, cond, 'BIGINT');
  }
  for (const f of VARIATION_COUNT_FIELDS) moveFromJson(f, 'TRUE', 'BIGINT');
  moveFromJson('revenue', 'TRUE', MONEY);
  const nameIsText = `json_type(${json}, '$.variation_name') = 'VARCHAR'`;
  compute.variation_name = `CASE WHEN ${nameIsText} THEN ${json} ->> '$.variation_name' END`;
  patch.push(
    `'variation_name'`,
    `CASE WHEN ${nameIsText} THEN 'null'::JSON ELSE json_extract(${json}, '$.variation_name') END`,
  );
  compute.extra_stats = `NULLIF(json_merge_patch(COALESCE(${json}, '{}'::JSON), json_object(${patch.join(', ')})), '{}'::JSON)`;
  return compute;
}

/**
 * The key of each variation entry of one channel's list: its `variation_api_id`; when the server leaves it out,
 * `name:<variation_name>`; without a name (or with a name another entry of the list shares), `position:<index>`. An id
 * two entries share falls back the same way, so no entry overwrites another.
 */
export function variationKeys(list: readonly CampaignVariationEntry[]): string[] {
  const count = (values: (string | undefined)[]) => {
    const n = new Map<string, number>();
    for (const v of values) if (v !== undefined) n.set(v, (n.get(v) ?? 0) + 1);
    return n;
  };
  const ids = count(list.map((m) => m.variationApiId));
  const names = count(list.map((m) => m.variationName));
  return list.map((m, j) => {
    if (m.variationApiId !== undefined && ids.get(m.variationApiId) === 1) return m.variationApiId;
    if (m.variationName !== undefined && names.get(m.variationName) === 1) return `name:${m.variationName}`;
    return `position:${j}`;
  });
}

/** A variation row's numbers: the channel counts, the variation counts and the revenue. */
const withMessageNumbers = numberColumns([...CHANNEL_COUNT_FIELDS, ...VARIATION_COUNT_FIELDS, 'revenue']);

/** An entry's identity and numbers, in a canonical order: two entries alike in everything are the same entry twice. */
function entryText(m: CampaignVariationEntry): string {
  const sorted = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify([m.variationApiId ?? null, m.variationName ?? null, sorted(m.numbers), sorted(m.extra)]);
}

/**
 * One channel's list without entries that repeat an earlier one exactly: the same variation listed twice with the same
 * numbers is one variation (storing it twice would double its sends in every sum). Entries that share an id but not
 * their numbers are all kept (under `position:` keys) and named, since neither can be chosen over the other.
 */
function withoutRepeats(
  where: string,
  channel: string,
  time: Date,
  list: readonly CampaignVariationEntry[],
): { list: readonly CampaignVariationEntry[]; notices: RowNotice[] } {
  const notices: RowNotice[] = [];
  const day = () => time.toISOString().slice(0, 10);
  // An exact repeat shares its id and name with an earlier entry, so the numbers are compared only when two entries
  // share both (a name is never empty: '' stands for none).
  const identities = new Set(list.map((m) => `${m.variationApiId ?? ''}\u0000${m.variationName ?? ''}`));
  let kept = list;
  if (identities.size < list.length) {
    const seen = new Set<string>();
    kept = list.filter((m) => {
      const text = entryText(m);
      if (!seen.has(text)) {
        seen.add(text);
        return true;
      }
      const name = m.variationApiId ?? m.variationName ?? '(no id)';
      notices.push({
        code: 'repeated_variation',
        key: `${channel}.${name}`,
        message: `${where}: variation ${JSON.stringify(name)} is listed twice with the same numbers on ${day()}; stored once`,
      });
      return false;
    });
  }
  const ids = kept.map((m) => m.variationApiId).filter((id): id is string => id !== undefined);
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i))) {
    notices.push({
      code: 'conflicting_variation',
      key: `${channel}.${id}`,
      message: `${where}: variation ${JSON.stringify(id)} is listed more than once with different numbers on ${day()}; each entry is stored under its position (variation_key position:<index>)`,
    });
  }
  return { list: kept, notices };
}

function dayRows(campaignId: string, time: Date, day: CampaignDay): ExtractedRows {
  const messages: RowOf<typeof messagesTable>[] = [];
  const notices: RowNotice[] = [];
  for (const [channel, sent] of Object.entries(day.messages)) {
    const where = `campaign_series (GET /campaigns/data_series messages.${channel})`;
    const { list, notices: repeats } = withoutRepeats(where, channel, time, sent);
    notices.push(...repeats);
    const keys = variationKeys(list);
    list.forEach((m, j) => {
      const row = {
        campaign_id: campaignId,
        time,
        channel,
        variation_key: keys[j]!,
        variation_api_id: m.variationApiId ?? null,
        variation_name: m.variationName ?? null,
        extra_stats: extraStats(m),
      };
      messages.push(withMessageNumbers(row, m));
    });
    notices.push(...statNotices(messagesTable.name, where, channel, list));
  }
  return {
    upserts: [
      rowsOf(totalsTable, [
        {
          campaign_id: campaignId,
          time,
          unique_recipients: day.unique_recipients,
          conversions: day.conversions,
          conversions1: day.conversions1,
          conversions2: day.conversions2,
          conversions3: day.conversions3,
          revenue: day.revenue,
          conversions_by_send_time: day.conversions_by_send_time,
          conversions1_by_send_time: day.conversions1_by_send_time,
          conversions2_by_send_time: day.conversions2_by_send_time,
          conversions3_by_send_time: day.conversions3_by_send_time,
        },
      ]),
      rowsOf(messagesTable, messages),
    ],
    replaces: [{ table: messagesTable.name, columns: ['campaign_id', 'time'], values: [[campaignId, time]] }],
    notices,
  };
}

/**
 * One campaign's daily series. A class, not an object of two closures: a plan holds one per campaign of the workspace
 * for the whole run, and its methods live once on the prototype, where closures and their context would cost each
 * series bytes of its own.
 */
class CampaignDays implements SeriesInstance<CampaignDay> {
  readonly unit = 'day';
  readonly dims: { readonly campaign_id: string };

  constructor(campaignId: string) {
    this.dims = { campaign_id: campaignId };
  }

  fetch(client: ApiClient, w: Window) {
    return fetchCampaignSeries(client, { campaignId: this.dims.campaign_id, length: w.length, endingAt: w.endingAt });
  }

  rows(time: Date, value: CampaignDay): ExtractedRows {
    return dayRows(this.dims.campaign_id, time, value);
  }
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
  discovery: idListDiscovery<CampaignSeriesOptions>(
    CAMPAIGN_LIST,
    (o) => o.campaigns,
    (o, campaigns) => ({ ...o, campaigns }),
  ),
  references: (o) => idReference('campaigns', CAMPAIGN_LIST, o.campaigns.ids),
  // The campaigns stream's details: a day left out before the first send or after the last one is a quiet day.
  activity: {
    details: campaignsStream as PerIdStream,
    detailsOptions: { campaigns: { all: true, ids: [] }, includeArchived: false } satisfies CampaignsOptions,
    idColumn: 'campaign_id',
    dim: 'campaign_id',
    first: 'first_sent',
    last: 'last_sent',
  },
  series: (o) => o.campaigns.ids.map((campaignId) => new CampaignDays(campaignId) as SeriesInstance),
});
