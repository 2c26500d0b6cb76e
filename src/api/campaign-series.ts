// GET /campaigns/data_series (issue 12): a campaign's statistics per day, with per channel one entry per message
// variation. The fields every channel has are typed; a channel's own fields (email `reported_spam`, push
// `direct_opens`…) are kept as they came, for a JSON column.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { ENDPOINTS, MAX_CAMPAIGN_SERIES_LENGTH } from './endpoints.js';
import { checkIntegerParam, checkStringParam, contextOf, isRecord, malformed, readNumber, type NumberKind } from './response-shape.js';
import type { CampaignSeriesPoint, CampaignVariationStats } from './types.js';
import type { RequestContext } from '../errors.js';

export interface CampaignSeriesQuery {
  campaignId: string;
  /** Days ending with the day that contains `endingAt`, 1 to MAX_CAMPAIGN_SERIES_LENGTH. */
  length: number;
  endingAt: string;
}

/** The statistics every channel's variation entry has, typed; the rest of an entry is its channel's own. */
export const CAMPAIGN_VARIATION_COUNTS = ['sent', 'opens', 'unique_opens', 'clicks', 'unique_clicks', 'bounces', 'unsubscribes', 'delivered'] as const;

const DAY_COUNTS = ['unique_recipients', 'conversions', 'conversions1', 'conversions2', 'conversions3'] as const;

export interface CampaignDayPoint {
  /** As the server wrote it. */
  time: string;
  value: Omit<CampaignSeriesPoint, 'time'>;
}

export async function fetchCampaignSeries(client: ApiClient, q: CampaignSeriesQuery): Promise<CampaignDayPoint[]> {
  checkStringParam('campaignId', q.campaignId);
  checkIntegerParam('length', q.length, 1, MAX_CAMPAIGN_SERIES_LENGTH);
  checkStringParam('endingAt', q.endingAt);
  const call: ApiCall = { endpoint: ENDPOINTS.campaignsDataSeries, query: { campaign_id: q.campaignId, length: q.length, ending_at: q.endingAt } };
  const response = await client.request<unknown>(call);
  return normalizeCampaignSeries(response.body, contextOf(call), response.status);
}

/** Checks a campaign series body: per day the totals, and per channel a list of variation entries. */
function normalizeCampaignSeries(body: unknown, ctx: RequestContext, status?: number): CampaignDayPoint[] {
  const fail = (what: string): never => {
    throw malformed(ctx, what, body, status);
  };
  const num = (obj: Record<string, unknown>, field: string, at: string, kind: NumberKind = 'count'): number => {
    const read = readNumber(obj[field], kind);
    return 'value' in read ? read.value : fail(`${at}.${field}: ${read.problem}`);
  };
  if (!isRecord(body) || !Array.isArray(body.data)) return fail('`data` is missing or not an array');
  return body.data.map((day: unknown, i: number) => {
    const at = `data[${i}]`;
    if (!isRecord(day)) return fail(`${at} is ${JSON.stringify(day)}, not an object`);
    if (typeof day.time !== 'string' || day.time.trim() === '') return fail(`${at} has no \`time\` string: ${JSON.stringify(day.time)}`);
    const messages: Record<string, CampaignVariationStats[]> = {};
    if (day.messages !== undefined && day.messages !== null) {
      if (!isRecord(day.messages)) return fail(`${at}.messages is not an object keyed by channel`);
      for (const [channel, list] of Object.entries(day.messages)) {
        if (!Array.isArray(list)) return fail(`${at}.messages.${channel} is not an array`);
        messages[channel] = list.map((m: unknown, j: number) => {
          const mAt = `${at}.messages.${channel}[${j}]`;
          if (!isRecord(m)) return fail(`${mAt} is not an object`);
          if (typeof m.variation_api_id !== 'string' || m.variation_api_id === '') return fail(`${mAt}.variation_api_id is ${JSON.stringify(m.variation_api_id)}, not an id`);
          const typed = Object.fromEntries(CAMPAIGN_VARIATION_COUNTS.map((f) => [f, num(m, f, mAt)]));
          return { ...m, variation_api_id: m.variation_api_id, ...typed } as CampaignVariationStats;
        });
      }
    }
    const counts = Object.fromEntries(DAY_COUNTS.map((f) => [f, num(day, f, at)])) as Record<(typeof DAY_COUNTS)[number], number>;
    return { time: day.time, value: { ...counts, revenue: num(day, 'revenue', at, 'amount'), messages } };
  });
}
