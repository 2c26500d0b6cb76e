// The statistics of a message differ per channel (the platform's documentation of GET /campaigns/data_series): the
// fields documented for each channel, and the split of one wire entry into documented numbers, fields without a column
// of their own, and the names this version does not know. Campaign variations, Canvas step messages and Canvas variants
// are read with it, so one rule holds for all: a documented field missing is absent (NULL), an unknown field is kept as
// sent and named for a warning, a present field whose value is not a number of its kind fails the answer. A channel the
// platform added after this version (`whats_app`) still counts: its fields named like a documented count of some
// channel (`sent`, `delivered`, `clicks`…) are read into that count when they hold one.
import { idKeyed, readNumber, type NumberKind } from './response-shape.js';

/** Push channels: "all push message types have the same statistics as android_push". */
const PUSH = ['sent', 'direct_opens', 'total_opens', 'bounces', 'body_clicks'] as const;
const IN_APP = ['impressions', 'clicks', 'first_button_clicks', 'second_button_clicks'] as const;

/** The counts each documented channel reports, by the channel's name in `messages`. */
export const CHANNEL_COUNTS: Readonly<Record<string, readonly string[]>> = {
  ios_push: PUSH,
  android_push: PUSH,
  kindle_push: PUSH,
  web_push: PUSH,
  email: [
    'sent',
    'opens',
    'unique_opens',
    'clicks',
    'unique_clicks',
    'unsubscribes',
    'bounces',
    'delivered',
    'reported_spam',
  ],
  sms: ['sent', 'delivered', 'undelivered', 'delivery_failed', 'opt_out', 'help'],
  webhook: ['sent', 'errors'],
  content_cards: [
    'total_impressions',
    'unique_impressions',
    'total_clicks',
    'unique_clicks',
    'total_dismissals',
    'unique_dismissals',
  ],
  in_app_message: IN_APP,
  trigger_in_app_message: IN_APP,
};

/** Every count documented for some channel, in column order: each is a BIGINT column, NULL where a channel lacks it. */
export const CHANNEL_COUNT_FIELDS = [
  'sent',
  'delivered',
  'undelivered',
  'delivery_failed',
  'bounces',
  'opens',
  'unique_opens',
  'direct_opens',
  'total_opens',
  'clicks',
  'unique_clicks',
  'body_clicks',
  'total_clicks',
  'impressions',
  'total_impressions',
  'unique_impressions',
  'first_button_clicks',
  'second_button_clicks',
  'total_dismissals',
  'unique_dismissals',
  'unsubscribes',
  'reported_spam',
  'opt_out',
  'help',
  'errors',
] as const;
export type ChannelCountField = (typeof CHANNEL_COUNT_FIELDS)[number];

/** Counts every campaign variation entry may carry, whatever its channel. */
export const VARIATION_COUNT_FIELDS = [
  'unique_recipients',
  'conversions',
  'conversions_by_send_time',
  'conversions1',
  'conversions1_by_send_time',
  'conversions2',
  'conversions2_by_send_time',
  'conversions3',
  'conversions3_by_send_time',
  'enrolled',
] as const;
export type VariationCountField = (typeof VARIATION_COUNT_FIELDS)[number];

/** The four counts spec 2.7 gives every Canvas step message, whatever its channel. */
export const STEP_MESSAGE_COUNT_FIELDS = ['sent', 'opens', 'influenced_opens', 'bounces'] as const;

/** Push per-button clicks, documented as name patterns: known (never warned) but without a column of their own. */
const PUSH_BUTTON_FIELD = /^(carousel_slide|notif_button)_\d+_.+_click$/;

const COUNT_FIELDS: ReadonlySet<string> = new Set(CHANNEL_COUNT_FIELDS);

/**
 * How a field of an entry is read: a count or amount with a column, a count kept with the extra fields (documented but
 * with no column), a count of a channel the documentation does not list read by the name another channel documents it
 * under (`borrowed_count`: kept aside and named instead when it is not a count), or undefined for a name this version
 * does not know.
 */
export type FieldKind = NumberKind | 'extra_count' | 'borrowed_count';

/** Whether the documentation lists the channel. */
export function isDocumentedChannel(channel: string): boolean {
  return Object.hasOwn(CHANNEL_COUNTS, channel);
}

/** channelFieldKind's readers, by `always` and channel: an answer names the same few channels on every day. */
const KIND_READERS = new WeakMap<object, Map<string, (field: string) => FieldKind | undefined>>();

/** The kind of a field of a channel's entry, `always` being read on every channel (an unknown one included). */
export function channelFieldKind(
  channel: string,
  always: Readonly<Record<string, NumberKind>>,
): (field: string) => FieldKind | undefined {
  let byChannel = KIND_READERS.get(always);
  if (byChannel === undefined) KIND_READERS.set(always, (byChannel = new Map()));
  let reader = byChannel.get(channel);
  if (reader === undefined) {
    reader = fieldKindReader(channel, always);
    // A server inventing channel names cannot grow the memo without bound: past the documented ones, readers are built.
    if (byChannel.size < 64) byChannel.set(channel, reader);
  }
  return reader;
}

function fieldKindReader(
  channel: string,
  always: Readonly<Record<string, NumberKind>>,
): (field: string) => FieldKind | undefined {
  const documented = isDocumentedChannel(channel);
  const own = new Set(documented ? CHANNEL_COUNTS[channel] : []);
  const push = own.has('direct_opens');
  return (field) => {
    if (Object.hasOwn(always, field)) return always[field];
    if (own.has(field)) return 'count';
    if (!documented && COUNT_FIELDS.has(field)) return 'borrowed_count';
    if (push && PUSH_BUTTON_FIELD.test(field)) return 'extra_count';
    return undefined;
  };
}

/** One entry split by what this version knows of it. */
export interface SplitStats {
  /** Documented numbers present in the entry, by field name (a JSON `null` counts as absent). */
  numbers: Record<string, number>;
  /** Fields without a column, as sent (per-button push clicks as numbers): an object, empty when none. */
  extra: Record<string, unknown>;
  /** The names in `extra` this version does not know, to be warned about. */
  unknown: string[];
}

/**
 * Splits `entry` (found at `at` in the body) by `kindOf`; the names in `skip` are read by the caller. A documented field
 * whose value is not a number of its kind fails through `fail`, which names the place and the value.
 */
export function splitStats(
  entry: Record<string, unknown>,
  at: string,
  fail: (what: string) => never,
  kindOf: (field: string) => FieldKind | undefined,
  skip: readonly string[] = [],
): SplitStats {
  const split: SplitStats = { numbers: idKeyed(), extra: idKeyed(), unknown: [] };
  // for…in, not Object.entries: no pair array per field. A parsed JSON object has no inherited enumerable keys.
  for (const field in entry) {
    if (skip.includes(field)) continue;
    const value = entry[field];
    const kind = kindOf(field);
    if (kind === undefined) {
      split.extra[field] = value;
      split.unknown.push(field);
      continue;
    }
    if (value === null) continue;
    const read = readNumber(value, kind === 'amount' ? 'amount' : 'count');
    if (kind === 'borrowed_count' && !('value' in read)) {
      split.extra[field] = value;
      split.unknown.push(field);
      continue;
    }
    if (!('value' in read)) return fail(`${at}.${field}: ${read.problem}`);
    if (kind === 'extra_count') split.extra[field] = read.value;
    else split.numbers[field] = read.value;
  }
  return split;
}
