// Canvases of the seeded workspace: variants, a small step graph, channels and message variations, plus the daily
// rates their statistics grow from. Ids follow one scheme for every seed: cv_N, cv_N_variant_K, cv_N_step_K, cv_N_step_K_msg_J.
import type { CanvasDetails, CanvasStep, CanvasVariant } from '../../api/types.js';
import { createRng, hashUnit, pick } from '../random.js';
import { countFor } from './analytics-catalogue.js';

export interface CanvasMessageVariation {
  id: string;
  channel: string;
  stepId: string;
}

export interface Canvas {
  id: string;
  details: CanvasDetails;
  /** Steps removed from the Canvas: absent from details, their stats appear only with include_deleted_step_data. */
  deletedSteps: { id: string; name: string; channels: string[]; messages: CanvasMessageVariation[] }[];
  /** Every message variation of the Canvas's live steps. */
  messages: CanvasMessageVariation[];
  /** Epoch ms of the UTC day of the first entry; stats are zero before it. */
  firstEntryDayMs: number;
  /** Epoch ms of the UTC day of the last entry for archived Canvases (zero after it); undefined while running. */
  lastEntryDayMs: number | undefined;
  /** Mean entries per day at the first entry. */
  entriesPerDay: number;
  conversionRate: number;
  /** Mean revenue per conversion, in cents. */
  revenuePerConversionCents: number;
}

const CHANNELS = ['email', 'ios_push', 'android_push', 'sms', 'webhook', 'in_app_message'] as const;
const CANVAS_NAMES = ['Onboarding journey', 'Win-back lapsed players', 'Weekend sale', 'Holiday event 2023', 'VIP upsell', 'Tutorial nudges', 'Guild invites'];
const STEP_TYPES = ['message', 'delay', 'decision_split', 'message', 'audience_paths'] as const;
const TEAMS = ['Growth', 'Lifecycle', 'Monetization'];
const TAGS = ['onboarding', 'retention', 'promo', 'seasonal', 'vip'];
const DAY = 86_400_000;

export function generateCanvases(seed: number, workspaceStartMs: number): Canvas[] {
  const n = countFor(seed, 'canvases', 5, 3, 7);
  return Array.from({ length: n }, (_, i) => generateCanvas(seed, workspaceStartMs, i + 1));
}

function generateCanvas(seed: number, workspaceStartMs: number, index: number): Canvas {
  const id = `cv_${index}`;
  const rng = createRng(Math.floor(hashUnit(seed, 'canvas', id) * 2 ** 32));
  const channels = [...new Set([pick(rng, CHANNELS), pick(rng, CHANNELS), 'email'])].sort();
  const stepCount = 4 + Math.floor(rng() * 3);
  const stepIds = Array.from({ length: stepCount }, (_, k) => `${id}_step_${k + 1}`);
  const messages: CanvasMessageVariation[] = [];
  const steps: CanvasStep[] = stepIds.map((stepId, k) => {
    // The first and last steps always send, so every Canvas has messages to count.
    const type = k === 0 || k === stepCount - 1 ? 'message' : pick(rng, STEP_TYPES);
    const next = stepIds.slice(k + 1, type === 'decision_split' || type === 'audience_paths' ? k + 3 : k + 2);
    const stepChannels = type === 'message' ? [...new Set([pick(rng, channels), pick(rng, channels)])].sort() : [];
    const stepMessages: CanvasStep['messages'] = {};
    stepChannels.forEach((channel, j) => {
      const msgId = `${stepId}_msg_${j + 1}`;
      messages.push({ id: msgId, channel, stepId });
      stepMessages[msgId] = { channel, name: `${channel} message ${j + 1}` };
    });
    const pathName = (j: number): string | null => {
      if (type === 'decision_split') return j === 0 ? 'Yes' : 'No';
      if (type === 'audience_paths') return j === 0 ? 'Engaged' : 'Everyone Else';
      return null;
    };
    return {
      name: type === 'message' ? `Send ${stepChannels.join(' + ')} (${k + 1})` : `${type.replace('_', ' ')} ${k + 1}`,
      type,
      id: stepId,
      next_step_ids: next,
      next_paths: next.map((nextId, j) => ({ name: pathName(j), next_step_id: nextId })),
      channels: stepChannels,
      messages: stepMessages,
    };
  });
  // Canvas 1 of every seed has two variants, the second entering at two steps: first_step_id appears only on the first.
  const variantCount = index === 1 ? 2 : 1 + Math.floor(rng() * 3);
  const variants: CanvasVariant[] = Array.from({ length: variantCount }, (_, k) => {
    const first = k === 1 && stepIds.length > 1 ? [stepIds[0]!, stepIds[1]!] : [stepIds[0]!];
    return { name: `Variant ${k + 1}`, id: `${id}_variant_${k + 1}`, first_step_ids: first, ...(first.length === 1 ? { first_step_id: first[0]! } : {}) };
  });
  const firstEntryDayMs = workspaceStartMs + Math.floor(14 + rng() * 420) * DAY;
  // Canvas 4 is a finished seasonal Canvas: archived, with a last entry; its stats stop after that day.
  const archived = index === 4;
  const lastEntryDayMs = archived ? firstEntryDayMs + 75 * DAY : undefined;
  const createdAt = new Date(firstEntryDayMs - 3 * DAY).toISOString();
  const deletedSteps = index === 2
    ? [{ id: `${id}_step_${stepCount + 1}`, name: `Old reminder (${stepCount + 1})`, channels: ['email'], messages: [{ id: `${id}_step_${stepCount + 1}_msg_1`, channel: 'email', stepId: `${id}_step_${stepCount + 1}` }] }]
    : [];
  return {
    id,
    details: {
      created_at: createdAt,
      updated_at: new Date(firstEntryDayMs + 30 * DAY).toISOString(),
      name: CANVAS_NAMES[index - 1] ?? `Canvas ${index}`,
      description: `Seeded Canvas ${index} of the emulator workspace.`,
      archived,
      draft: false,
      schedule_type: pick(rng, ['action_based', 'time_based', 'api_triggered']),
      first_entry: new Date(firstEntryDayMs + 9 * 3_600_000).toISOString(),
      last_entry: new Date((lastEntryDayMs ?? firstEntryDayMs + 700 * DAY) + 20 * 3_600_000).toISOString(),
      channels,
      variants,
      tags: [pick(rng, TAGS)],
      teams: [pick(rng, TEAMS)],
      steps,
      message: 'success',
    },
    deletedSteps,
    messages,
    firstEntryDayMs,
    lastEntryDayMs,
    entriesPerDay: 80 + Math.floor(rng() * 900),
    conversionRate: 0.02 + rng() * 0.12,
    revenuePerConversionCents: 199 + Math.floor(rng() * 2500),
  };
}
