// Rows for the staging-format bench (stage-formats.ts), shaped as the extractors build them: campaign_message_series (43
// columns: ids, a timestamp, 35 counts NULL where the row's channel does not report them, money, a JSON column) and
// sessions (5 columns). Deterministic, made page by page like syntheticPages, with a few strings that need quoting or
// escaping (quotes, commas, newlines, unicode) and money that is a sum of doubles, as the API's floats are.
import { CHANNEL_COUNTS, CHANNEL_COUNT_FIELDS, VARIATION_COUNT_FIELDS } from '../src/api/channel-stats.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const START_MS = Date.UTC(2023, 0, 1);

/** A 32-bit mix of `i` and `salt` (deterministic, cheap). */
export function mix(i: number, salt: number): number {
  let h = Math.imul(i ^ (salt * 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A UUID-shaped id (the platform's ids are 36 characters). */
function uuid(kind: number, n: number): string {
  const hex = (v: number, len: number) => v.toString(16).padStart(len, '0').slice(-len);
  return `${hex(mix(n, kind), 8)}-${hex(mix(n, kind + 1), 4)}-4${hex(mix(n, kind + 2), 3)}-a${hex(mix(n, kind + 3), 3)}-${hex(mix(n, kind + 4), 8)}${hex(n, 4)}`;
}

/** Names that a CSV must quote or a JSON writer must escape, used for about one row in 500. */
export const AWKWARD_STRINGS: readonly string[] = [
  'He said "hi"',
  'a, b and c',
  'line one\nline two',
  'crlf\r\nend',
  'tab\there',
  'back\\slash',
  'café crème',
  '日本語のキャンペーン',
  'emoji 🎉🚀',
  'line\u2028separator',
  '',
  'NULL',
  '\\N',
  ' padded ',
  '{"looks":"like json"}',
  '"',
  "it's",
  'comma,',
  'trailing\n',
];

/** Channel pairs a campaign sends on, by campaign. */
const CHANNEL_PAIRS: readonly (readonly [string, string])[] = [
  ['email', 'ios_push'],
  ['android_push', 'in_app_message'],
  ['sms', 'webhook'],
  ['content_cards', 'email'],
  ['web_push', 'trigger_in_app_message'],
];
const DAYS_PER_CAMPAIGN = 730;
/** Two channels × two variations a day. */
const ROWS_PER_DAY = 4;

/** Row `i` of campaign_message_series, keys in the order dayRows builds them. */
export function campaignMessageRow(i: number): Record<string, unknown> {
  const perCampaign = DAYS_PER_CAMPAIGN * ROWS_PER_DAY;
  const k = Math.floor(i / perCampaign);
  const day = Math.floor((i % perCampaign) / ROWS_PER_DAY);
  const slot = i % ROWS_PER_DAY;
  const channel = CHANNEL_PAIRS[k % CHANNEL_PAIRS.length]![slot >> 1]!;
  const variation = slot & 1;
  const variationId = uuid(7, k * 4 + slot);
  const h = mix(i, 1);
  const awkward = h % 499 === 0 ? AWKWARD_STRINGS[(h >>> 9) % AWKWARD_STRINGS.length]! : undefined;
  const push = channel.endsWith('_push');
  const row: Record<string, unknown> = {
    campaign_id: uuid(3, k),
    time: new Date(START_MS + day * DAY_MS),
    channel,
    variation_key: variationId,
    variation_api_id: h % 97 === 0 ? null : variationId,
    variation_name: awkward ?? (variation === 0 ? 'Control' : `Variant ${variation}`),
    extra_stats:
      push && h % 3 === 0 ? { notif_button_1_open_click: h % 50, carousel_slide_2_buy_now_click: (h >>> 6) % 9 } : null,
  };
  const own = CHANNEL_COUNTS[channel]!;
  const sent = 1000 + (h % 200_000);
  for (let f = 0; f < CHANNEL_COUNT_FIELDS.length; f++) {
    const field = CHANNEL_COUNT_FIELDS[f]!;
    row[field] = own.includes(field) ? (field === 'sent' ? sent : mix(i, f + 10) % (sent + 1)) : null;
  }
  for (let f = 0; f < VARIATION_COUNT_FIELDS.length; f++) {
    const field = VARIATION_COUNT_FIELDS[f]!;
    row[field] = field === 'enrolled' && h % 5 !== 0 ? null : mix(i, f + 40) % 5000;
  }
  // Revenue as the API's float: cents, and every seventh row a sum of three amounts (3531.0199999999995 and the like).
  const cents = mix(i, 60) % 1_000_000;
  row['revenue'] =
    h % 7 === 0
      ? cents / 100 + (mix(i, 61) % 10_000) / 100 + (mix(i, 62) % 1000) / 100
      : h % 11 === 0
        ? null
        : cents / 100;
  return row;
}

const HOURS_PER_SERIES = 20_000;

/** Row `i` of sessions: series `app × segment` of 20,000 hours each. */
export function sessionsRow(i: number): Record<string, unknown> {
  const series = Math.floor(i / HOURS_PER_SERIES);
  const hour = i % HOURS_PER_SERIES;
  return {
    app_id: uuid(11, series % 37),
    segment_id: series % 3 === 0 ? '*' : uuid(13, series),
    unit: 'hour',
    time: new Date(START_MS + hour * HOUR_MS),
    sessions: mix(i, 2) % 100_000,
  };
}

export const BENCH_TABLES = {
  campaign_message_series: campaignMessageRow,
  sessions: sessionsRow,
} as const;
export type BenchTable = keyof typeof BENCH_TABLES;

/** Pages of `pageRows` rows of `table` covering rows [0, total). */
export function* tablePages(table: BenchTable, total: number, pageRows: number): Generator<Record<string, unknown>[]> {
  const make = BENCH_TABLES[table];
  for (let start = 0; start < total; start += pageRows) {
    const end = Math.min(total, start + pageRows);
    const page: Record<string, unknown>[] = [];
    for (let i = start; i < end; i++) page.push(make(i));
    yield page;
  }
}
