// Campaigns of the seeded workspace: channels, message variations, conversion behaviors, a daily send schedule and the
// rates their statistics grow from. Ids: cmp_N and cmp_N_var_K. Campaigns are created, edited and archived over time.
import type { CampaignConversionBehavior, CampaignDetailsBody, CampaignMessage } from '../../api/types.js';
import { createRng, hashUnit, pick } from '../random.js';
import type { Lifecycle } from './lifecycle.js';
import { archivedAt, iso, lastEditAt, seededLifecycle } from './lifecycle.js';
import type { CatalogueShape } from './workspace-size.js';
import { DEMO_SHAPE, styledId } from './workspace-size.js';
import { DAY_MS, HOUR_MS } from './time-units.js';

export interface CampaignVariation {
  /** The variation's API id (`variation_api_id` in the series, the key of `messages` in the details). */
  id: string;
  channel: string;
  name: string;
  /** Share of the campaign's daily recipients this variation reaches (relative weight). */
  weight: number;
  /** A push message with action buttons reports per-button clicks (`notif_button_<n>_<title>_click`). */
  hasButtons: boolean;
}

export interface Campaign {
  id: string;
  name: string;
  description: string;
  tags: string[];
  teams: string[];
  scheduleType: string;
  isApiCampaign: boolean;
  /** A draft never sends: no first_sent, a zero series. */
  draft: boolean;
  lifecycle: Lifecycle;
  channels: string[];
  variations: CampaignVariation[];
  conversionBehaviors: CampaignConversionBehavior[];
  /** UTC hour of the daily send. */
  sendHour: number;
  /** UTC day of the first send; undefined for drafts. */
  firstSendDayMs: number | undefined;
  /** UTC day of the last send (the archive day, or the end of a finished campaign); undefined while it keeps sending. */
  lastSendDayMs: number | undefined;
  /** Mean recipients per day and unit of variation weight, before growth and weekly shaping. */
  recipientsPerDay: number;
  conversionRate: number;
  /** Mean revenue per conversion, in cents. */
  revenuePerConversionCents: number;
}

/** Campaigns of the workspace: more than a list page of 100. */
export const CAMPAIGN_COUNT = 160;
const CHANNELS = ['email', 'ios_push', 'android_push', 'sms', 'webhook', 'in_app_message', 'content_cards'] as const;
/** Every OMNICHANNEL_EVERY-th campaign (cmp_1, cmp_21, …) has a variation on every channel. */
const OMNICHANNEL_EVERY = 20;
const THEMES = [
  'Weekly digest',
  'Flash sale',
  'New level pack',
  'Come back bonus',
  'Tournament reminder',
  'Receipt follow-up',
  'Birthday gift',
  'Survey',
];
const TAGS = ['promo', 'retention', 'transactional', 'seasonal', 'newsletter'];
const TEAMS = ['Growth', 'Lifecycle', 'Monetization'];
const BEHAVIORS: readonly CampaignConversionBehavior[] = [
  { type: 'Opens App', window: 86_400 },
  { type: 'Makes Purchase', window: 259_200 },
  { type: 'Performs Custom Event', window: 172_800, custom_event_name: 'level_completed' },
  { type: 'Clicks Email', window: 86_400 },
];

export function generateCampaigns(seed: number, shape: CatalogueShape = DEMO_SHAPE): Campaign[] {
  const n = shape.size.campaigns ?? CAMPAIGN_COUNT;
  return Array.from({ length: n }, (_, k) => generateCampaign(seed, shape, k, n));
}

function generateCampaign(seed: number, shape: CatalogueShape, k: number, n: number): Campaign {
  // The catalogue's draws follow the demo id: a campaign has the same channels and dates whatever its ids look like.
  const demoId = `cmp_${k + 1}`;
  const id = styledId(seed, shape.idStyle, demoId);
  const rng = createRng(Math.floor(hashUnit(seed, 'campaign', demoId) * 2 ** 32));
  const lifecycle = seededLifecycle(seed, 'campaign', k, n, { archivedShare: 0.1 });
  const picked = [...new Set([pick(rng, CHANNELS), ...(rng() < 0.5 ? [pick(rng, CHANNELS)] : [])])];
  const channels = (k % OMNICHANNEL_EVERY === 0 ? [...CHANNELS] : picked).sort();
  const variations: CampaignVariation[] = [];
  for (const channel of channels) {
    const count = 1 + Math.floor(rng() * 2);
    for (let j = 0; j < count; j++) {
      const weight = 0.5 + rng();
      const hasButtons = channel.endsWith('_push') && hashUnit(seed, 'buttons', demoId, variations.length) < 0.5;
      variations.push({
        id: `${id}_var_${variations.length + 1}`,
        channel,
        name: `Variant ${variations.length + 1}`,
        weight,
        hasButtons,
      });
    }
  }
  const isApiCampaign = rng() < 0.12;
  const draft = !isApiCampaign && lifecycle.archivedMs === undefined && rng() < 0.06;
  const createdDay = Math.floor(lifecycle.createdMs / DAY_MS) * DAY_MS;
  const firstSendDayMs = draft ? undefined : createdDay + (1 + Math.floor(rng() * 6)) * DAY_MS;
  // Archived campaigns stop sending on their archive day; some others are one-off runs that end after a few weeks.
  const finishedAfterDays = rng() < 0.3 ? 7 + Math.floor(rng() * 60) : undefined;
  const archiveDay =
    lifecycle.archivedMs === undefined ? undefined : Math.floor(lifecycle.archivedMs / DAY_MS) * DAY_MS;
  let lastSendDayMs: number | undefined;
  if (firstSendDayMs !== undefined) {
    const finished = finishedAfterDays === undefined ? undefined : firstSendDayMs + finishedAfterDays * DAY_MS;
    lastSendDayMs = archiveDay === undefined ? finished : Math.min(archiveDay, finished ?? archiveDay);
    if (lastSendDayMs !== undefined && lastSendDayMs < firstSendDayMs) lastSendDayMs = firstSendDayMs;
  }
  return {
    id,
    name: `${THEMES[k % THEMES.length]} ${Math.floor(k / THEMES.length) + 1}`,
    description: `Campaign ${k + 1} of the emulator workspace.`,
    tags: rng() < 0.7 ? [pick(rng, TAGS)] : [],
    teams: [pick(rng, TEAMS)],
    scheduleType: isApiCampaign ? 'api_triggered' : pick(rng, ['time_based', 'action_based']),
    isApiCampaign,
    draft,
    lifecycle,
    channels,
    variations,
    conversionBehaviors: [BEHAVIORS[0]!, ...(rng() < 0.6 ? [pick(rng, BEHAVIORS.slice(1))] : [])].map((b) => ({
      ...b,
    })),
    sendHour: 8 + Math.floor(rng() * 12),
    firstSendDayMs,
    lastSendDayMs,
    recipientsPerDay: 50 + Math.floor(rng() * 1500),
    conversionRate: 0.01 + rng() * 0.08,
    revenuePerConversionCents: 99 + Math.floor(rng() * 1900),
  };
}

/** Instant of the latest send at or before `nowMs`, or undefined when none has happened. */
export function lastSendAt(campaign: Campaign, nowMs: number): number | undefined {
  if (campaign.firstSendDayMs === undefined) return undefined;
  let day = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (campaign.lastSendDayMs !== undefined) day = Math.min(day, campaign.lastSendDayMs);
  if (day + campaign.sendHour * HOUR_MS > nowMs) day -= DAY_MS;
  return day < campaign.firstSendDayMs ? undefined : day + campaign.sendHour * HOUR_MS;
}

function channelFields(channel: string, variation: CampaignVariation, campaignName: string): CampaignMessage {
  const base = { channel, name: variation.name };
  if (channel === 'email')
    return {
      ...base,
      subject: `${campaignName}: ${variation.name}`,
      from: 'Puzzle Games <news@example.com>',
      title: `${campaignName} email`,
    };
  if (channel === 'ios_push' || channel === 'android_push')
    return { ...base, alert: `${campaignName} — tap to play`, extras: {} };
  if (channel === 'sms') return { ...base, body: `${campaignName}: reply STOP to opt out` };
  if (channel === 'webhook') return { ...base, url: 'https://hooks.example.com/engage', http_method: 'POST' };
  if (channel === 'content_cards')
    return { ...base, type: 'classic', title: campaignName, description: `${campaignName}: tap to claim` };
  return { ...base, type: 'modal', message: campaignName };
}

/** The details a campaign answers at `nowMs` (it must exist then): latest edit, archive state and sends so far. */
export function campaignDetailsAt(campaign: Campaign, nowMs: number): CampaignDetailsBody {
  const firstSend =
    campaign.firstSendDayMs === undefined ? undefined : campaign.firstSendDayMs + campaign.sendHour * HOUR_MS;
  const lastSend = lastSendAt(campaign, nowMs);
  const archived = archivedAt(campaign.lifecycle, nowMs);
  const finished = campaign.lastSendDayMs !== undefined && campaign.lastSendDayMs + DAY_MS <= nowMs;
  return {
    name: campaign.name,
    description: campaign.description,
    created_at: iso(campaign.lifecycle.createdMs),
    updated_at: iso(lastEditAt(campaign.lifecycle, nowMs)),
    archived,
    draft: campaign.draft,
    enabled: !campaign.draft && !archived && !finished,
    schedule_type: campaign.scheduleType,
    channels: [...campaign.channels],
    first_sent: firstSend !== undefined && firstSend <= nowMs ? iso(firstSend) : null,
    last_sent: lastSend === undefined ? null : iso(lastSend),
    tags: [...campaign.tags],
    teams: [...campaign.teams],
    messages: Object.fromEntries(campaign.variations.map((v) => [v.id, channelFields(v.channel, v, campaign.name)])),
    conversion_behaviors: campaign.conversionBehaviors.map((b) => ({ ...b })),
    message: 'success',
  };
}
