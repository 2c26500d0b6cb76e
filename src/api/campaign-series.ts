// GET /campaigns/data_series: a campaign's statistics per day, with per channel one entry per
// message variation. A message's statistics differ per channel (channel-stats.ts): every documented field is read as a
// number where present and left absent where not; fields this version does not know are kept as sent and named.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { channelFieldKind, splitStats, VARIATION_COUNT_FIELDS, type SplitStats } from './channel-stats.js';
import { ENDPOINTS, MAX_CAMPAIGN_SERIES_LENGTH } from './endpoints.js';
import {
  checkIntegerParam,
  checkStringParam,
  contextOf,
  idKeyed,
  isRecord,
  malformed,
  readNumber,
  type NumberKind,
} from './response-shape.js';
import type { RequestContext } from '../errors.js';

export interface CampaignSeriesQuery {
  campaignId: string;
  /** Days ending with the day that contains `endingAt`, 1 to MAX_CAMPAIGN_SERIES_LENGTH. */
  length: number;
  endingAt: string;
}

/** Day totals every answer has. */
const DAY_COUNTS = ['unique_recipients', 'conversions'] as const;
/** Day totals the documentation marks optional: absent → null. */
export const OPTIONAL_DAY_COUNTS = [
  'conversions1',
  'conversions2',
  'conversions3',
  'conversions_by_send_time',
  'conversions1_by_send_time',
  'conversions2_by_send_time',
  'conversions3_by_send_time',
] as const;

/** The fields any variation entry may carry besides its channel's own: the documented counts and `revenue`. */
const VARIATION_FIELDS: Readonly<Record<string, NumberKind>> = {
  ...Object.fromEntries(VARIATION_COUNT_FIELDS.map((f) => [f, 'count' as const])),
  revenue: 'amount',
};

/** One variation entry of one channel on one day. */
export interface CampaignVariationEntry extends SplitStats {
  /** Absent when the server leaves it out: the documentation's examples do not always show it. */
  variationApiId: string | undefined;
  variationName: string | undefined;
}

export type CampaignDay = Record<(typeof DAY_COUNTS)[number], number> &
  Record<(typeof OPTIONAL_DAY_COUNTS)[number] | 'revenue', number | null> & {
    /** Keyed by channel, in the answer's order. */
    messages: Record<string, CampaignVariationEntry[]>;
  };

export interface CampaignDayPoint {
  /** As the server wrote it. */
  time: string;
  value: CampaignDay;
}

export async function fetchCampaignSeries(client: ApiClient, q: CampaignSeriesQuery): Promise<CampaignDayPoint[]> {
  checkStringParam('campaignId', q.campaignId);
  checkIntegerParam('length', q.length, 1, MAX_CAMPAIGN_SERIES_LENGTH);
  checkStringParam('endingAt', q.endingAt);
  const call: ApiCall = {
    endpoint: ENDPOINTS.campaignsDataSeries,
    query: { campaign_id: q.campaignId, length: q.length, ending_at: q.endingAt },
  };
  const response = await client.request<unknown>(call);
  return normalizeCampaignSeries(response.body, contextOf(call), response.status);
}

/** Checks a campaign series body: per day the totals, and per channel a list of variation entries. */
export function normalizeCampaignSeries(body: unknown, ctx: RequestContext, status?: number): CampaignDayPoint[] {
  const fail = (what: string): never => {
    throw malformed(ctx, what, body, status);
  };
  const num = (obj: Record<string, unknown>, field: string, at: string, kind: NumberKind = 'count'): number => {
    const read = readNumber(obj[field], kind);
    return 'value' in read ? read.value : fail(`${at}.${field}: ${read.problem}`);
  };
  const optional = (
    obj: Record<string, unknown>,
    field: string,
    at: string,
    kind: NumberKind = 'count',
  ): number | null => (obj[field] === undefined || obj[field] === null ? null : num(obj, field, at, kind));
  const optionalString = (obj: Record<string, unknown>, field: string, at: string): string | undefined => {
    const v = obj[field];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' && v !== ''
      ? v
      : fail(`${at}.${field} is ${JSON.stringify(v)}, not a non-empty string`);
  };
  if (!isRecord(body) || !Array.isArray(body.data)) return fail('`data` is missing or not an array');
  return body.data.map((day: unknown, i: number) => {
    const at = `data[${i}]`;
    if (!isRecord(day)) return fail(`${at} is ${JSON.stringify(day)}, not an object`);
    if (typeof day.time !== 'string' || day.time.trim() === '')
      return fail(`${at} has no \`time\` string: ${JSON.stringify(day.time)}`);
    const messages: Record<string, CampaignVariationEntry[]> = idKeyed();
    if (day.messages !== undefined && day.messages !== null) {
      if (!isRecord(day.messages)) return fail(`${at}.messages is not an object keyed by channel`);
      for (const [channel, list] of Object.entries(day.messages)) {
        if (!Array.isArray(list)) return fail(`${at}.messages.${channel} is not an array`);
        const kindOf = channelFieldKind(channel, VARIATION_FIELDS);
        messages[channel] = list.map((m: unknown, j: number) => {
          const mAt = `${at}.messages.${channel}[${j}]`;
          if (!isRecord(m)) return fail(`${mAt} is not an object`);
          return {
            variationApiId: optionalString(m, 'variation_api_id', mAt),
            variationName: optionalString(m, 'variation_name', mAt),
            ...splitStats(m, mAt, fail, kindOf, ['variation_api_id', 'variation_name']),
          };
        });
      }
    }
    // A literal, not objects built from the lists of names and spread: that was ten times the cost of parsing the body.
    const value: CampaignDay = {
      unique_recipients: num(day, 'unique_recipients', at),
      conversions: num(day, 'conversions', at),
      conversions1: optional(day, 'conversions1', at),
      conversions2: optional(day, 'conversions2', at),
      conversions3: optional(day, 'conversions3', at),
      conversions_by_send_time: optional(day, 'conversions_by_send_time', at),
      conversions1_by_send_time: optional(day, 'conversions1_by_send_time', at),
      conversions2_by_send_time: optional(day, 'conversions2_by_send_time', at),
      conversions3_by_send_time: optional(day, 'conversions3_by_send_time', at),
      revenue: optional(day, 'revenue', at, 'amount'),
      messages,
    };
    return { time: day.time, value };
  });
}
