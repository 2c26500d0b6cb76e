// Daily statistics of a campaign, computed on demand: per message variation the sends of the day and what followed,
// written in the fields of its channel (each channel reports its own set), its conversions and revenue; and the day's
// recipients, conversions and revenue. Every field is a floor of a non-decreasing base, so late data only ever adds.
import type { CampaignSeriesPoint, CampaignVariationStats } from '../../api/types.js';
import { hashPrefix, hashUnitAfter } from '../random.js';
import { channelStats, type MessageOutcome } from './channel-stats-model.js';
import type { Campaign, CampaignVariation } from './campaign-catalogue.js';
import type { SeriesSource } from './series-model.js';
import { completeness, dayShape } from './series-model.js';
import { DAY_MS, formatDay, HOUR_MS } from './time-units.js';

const OPEN_RATE: Record<string, number> = {
  email: 0.28,
  ios_push: 0.09,
  android_push: 0.07,
  sms: 0.02,
  webhook: 0,
  in_app_message: 0.6,
  content_cards: 0.45,
};
const BOUNCE_RATE: Record<string, number> = {
  email: 0.03,
  ios_push: 0.02,
  android_push: 0.02,
  sms: 0.03,
  webhook: 0.01,
  in_app_message: 0,
  content_cards: 0,
};

/**
 * Share of a day's final sends visible at `nowMs`: nothing before the day's send hour, 70 % from the send until the day
 * ends, then rising as late data arrives to 100 % 48 hours after the day ended (as the other series do).
 */
export function campaignDayFraction(campaign: Campaign, dayStartMs: number, nowMs: number): number {
  const dayEnd = dayStartMs + DAY_MS;
  if (nowMs >= dayEnd) return completeness(nowMs - dayEnd);
  return nowMs >= dayStartMs + campaign.sendHour * HOUR_MS ? completeness(0) : 0;
}

/** Whether the campaign sends on a UTC day (drafts never do). */
export function sendsOn(campaign: Campaign, dayStartMs: number): boolean {
  if (campaign.firstSendDayMs === undefined || dayStartMs < campaign.firstSendDayMs) return false;
  return campaign.lastSendDayMs === undefined || dayStartMs <= campaign.lastSendDayMs;
}

function variationModel(
  source: SeriesSource,
  campaign: Campaign,
  v: CampaignVariation,
  dayStartMs: number,
  scale: number,
  u: (part: string) => number,
): MessageOutcome {
  const full =
    scale === 0 ? 0 : campaign.recipientsPerDay * v.weight * dayShape(source, dayStartMs) * (0.85 + 0.3 * u('sent'));
  const sent = Math.floor(full * scale);
  const bounces = Math.floor(sent * (BOUNCE_RATE[v.channel] ?? 0) * u('bounces'));
  const delivered = sent - bounces;
  const uniqueOpens = Math.floor(delivered * (OPEN_RATE[v.channel] ?? 0) * (0.8 + 0.4 * u('opens')));
  const opens = uniqueOpens + Math.floor(uniqueOpens * 0.3 * u('reopens'));
  const uniqueClicks = Math.floor(uniqueOpens * 0.25 * u('clicks'));
  const clicks = uniqueClicks + Math.floor(uniqueClicks * 0.4 * u('reclicks'));
  const unsubscribes =
    v.channel === 'email' || v.channel === 'sms' ? Math.floor(delivered * 0.004 * u('unsubscribes')) : 0;
  return { sent, bounces, delivered, uniqueOpens, opens, uniqueClicks, clicks, unsubscribes };
}

function variationDay(
  source: SeriesSource,
  campaign: Campaign,
  v: CampaignVariation,
  dayStartMs: number,
  scale: number,
): { stats: CampaignVariationStats; sent: number } {
  const prefix = hashPrefix(source.seed, v.id, dayStartMs);
  const u = (part: string): number => hashUnitAfter(prefix, part);
  const m = variationModel(source, campaign, v, dayStartMs, scale, u);
  const conversions = Math.floor(m.sent * campaign.conversionRate * (0.8 + 0.4 * u('conversions')));
  const revenueCents =
    conversions * campaign.revenuePerConversionCents + (conversions > 0 ? Math.floor(u('cents') * 100) : 0);
  const stats: CampaignVariationStats = {
    variation_api_id: v.id,
    variation_name: v.name,
    ...channelStats(v.channel, m, u, v.hasButtons),
    unique_recipients: m.sent,
    conversions,
    conversions_by_send_time: Math.floor(conversions * (0.85 + 0.15 * u('by-send-time'))),
    revenue: revenueCents / 100,
  };
  return { stats, sent: m.sent };
}

/**
 * One day of `/campaigns/data_series` as seen at `nowMs`: undefined when the day has not begun; zeros (with every
 * variation of the details) on days without a send — before the first send, after the last, for drafts.
 */
export function campaignDay(
  source: SeriesSource,
  campaign: Campaign,
  dayStartMs: number,
  nowMs: number,
): CampaignSeriesPoint | undefined {
  if (dayStartMs > nowMs) return undefined;
  const active = dayStartMs >= source.startMs && sendsOn(campaign, dayStartMs);
  const scale = active
    ? campaignDayFraction(campaign, dayStartMs, nowMs) *
      source.restatementFactor('campaign', dayStartMs, { campaignId: campaign.id })
    : 0;
  const messages: Record<string, CampaignVariationStats[]> = {};
  let recipients = 0;
  for (const v of campaign.variations) {
    const { stats, sent } = variationDay(source, campaign, v, dayStartMs, scale);
    recipients += sent;
    (messages[v.channel] ??= []).push(stats);
  }
  const prefix = hashPrefix(source.seed, campaign.id, dayStartMs);
  const u = (part: string): number => hashUnitAfter(prefix, part);
  const conversions = Math.floor(recipients * campaign.conversionRate * (0.8 + 0.4 * u('conversions')));
  const cents = conversions * campaign.revenuePerConversionCents + (conversions > 0 ? Math.floor(u('cents') * 100) : 0);
  const conversions1 = Math.floor(conversions * 0.6 * u('c1'));
  const conversions2 = Math.floor(conversions * 0.3 * u('c2'));
  const conversions3 = Math.floor(conversions * 0.1 * u('c3'));
  // Conversions counted on the day of the send that led to them rather than the day they happened: close to the others.
  const bySendTime = (n: number, part: string) => Math.floor(n * (0.85 + 0.15 * u(part)));
  return {
    time: formatDay(dayStartMs),
    unique_recipients: recipients,
    conversions,
    conversions_by_send_time: bySendTime(conversions, 'bst'),
    conversions1,
    conversions1_by_send_time: bySendTime(conversions1, 'bst1'),
    conversions2,
    conversions2_by_send_time: bySendTime(conversions2, 'bst2'),
    conversions3,
    conversions3_by_send_time: bySendTime(conversions3, 'bst3'),
    revenue: cents / 100,
    messages,
  };
}

/** The series of the given UTC days, oldest first; days not yet begun are left out. */
export function campaignSeries(
  source: SeriesSource,
  campaign: Campaign,
  dayStarts: readonly number[],
  nowMs: number,
): CampaignSeriesPoint[] {
  return dayStarts
    .map((d) => campaignDay(source, campaign, d, nowMs))
    .filter((p): p is CampaignSeriesPoint => p !== undefined);
}
