// Canvases of the seeded workspace: variants, a small step graph, channels and message variations, plus the daily
// rates their statistics grow from. Ids follow one scheme for every seed: cv_N, cv_N_variant_K, cv_N_step_K, cv_N_step_K_msg_J.
// The first few are the original demo Canvases; the rest are created (and some archived) over time for discovery.
import type { CanvasDetails, CanvasStep, CanvasVariant } from '../../api/types.js';
import { createRng, hashUnit, pick } from '../random.js';
import { countFor } from './analytics-catalogue.js';
import type { Lifecycle } from './lifecycle.js';
import { ADDED_ID_BASE, archivedAt, fixedLifecycle, iso, lastEditAt, seededLifecycle } from './lifecycle.js';
import type { CatalogueShape } from './workspace-size.js';
import { DEMO_SHAPE, splitCount, styledId } from './workspace-size.js';

export interface CanvasMessageVariation {
  id: string;
  channel: string;
  stepId: string;
}

export interface Canvas {
  id: string;
  /** Details as of the end of time: `canvasDetailsAt` reads `updated_at` and `archived` at an instant. */
  details: CanvasDetails;
  lifecycle: Lifecycle;
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
const CANVAS_NAMES = [
  'Onboarding journey',
  'Win-back lapsed players',
  'Weekend sale',
  'Holiday event 2023',
  'VIP upsell',
  'Tutorial nudges',
  'Guild invites',
];
const STEP_TYPES = ['message', 'delay', 'decision_split', 'message', 'audience_paths'] as const;
const TEAMS = ['Growth', 'Lifecycle', 'Monetization'];
const TAGS = ['onboarding', 'retention', 'promo', 'seasonal', 'vip'];
const DAY = 86_400_000;

/** Canvases added for discovery after the original ones: more than a list page of 100. */
export const ADDED_CANVASES = 160;
const ADDED_THEMES = [
  'Daily login streak',
  'Level milestone',
  'Abandoned cart',
  'Event countdown',
  'Friend referral',
  'Rate the app',
  'Price drop',
  'Reactivation',
];

/** The original Canvases (cv_1 … cv_n, unchanged), then the ones created over time. */
/** How many original Canvases a seed has (5 for seed 1). */
export function originalCanvasCount(seed: number): number {
  return countFor(seed, 'canvases', 5, 3, 7);
}

export function generateCanvases(seed: number, workspaceStartMs: number, shape: CatalogueShape = DEMO_SHAPE): Canvas[] {
  const count = splitCount(shape.size.canvases, originalCanvasCount(seed), ADDED_CANVASES);
  const originals = Array.from({ length: count.originals }, (_, i) =>
    generateCanvas(seed, workspaceStartMs, shape, i + 1),
  );
  const added = Array.from({ length: count.added }, (_, k) =>
    addedCanvas(seed, workspaceStartMs, shape, ADDED_ID_BASE + k, k, count.added),
  );
  return [...originals, ...added];
}

function addedCanvas(
  seed: number,
  workspaceStartMs: number,
  shape: CatalogueShape,
  index: number,
  k: number,
  addedCount: number,
): Canvas {
  const canvas = generateCanvas(seed, workspaceStartMs, shape, index, true);
  const lifecycle = seededLifecycle(seed, 'canvas', k, addedCount, { archivedShare: 0.1 });
  const createdDay = Math.floor(lifecycle.createdMs / DAY) * DAY;
  const firstEntryDayMs = createdDay + (1 + Math.floor(hashUnit(seed, 'canvas-first-entry', `cv_${index}`) * 4)) * DAY;
  // An archived Canvas stops entering users on the day it is archived.
  const lastEntryDayMs = lifecycle.archivedMs === undefined ? undefined : Math.floor(lifecycle.archivedMs / DAY) * DAY;
  return {
    ...canvas,
    lifecycle,
    firstEntryDayMs,
    lastEntryDayMs,
    details: {
      ...canvas.details,
      name: `${ADDED_THEMES[k % ADDED_THEMES.length]} ${Math.floor(k / ADDED_THEMES.length) + 1}`,
      description: `Canvas ${index} of the emulator workspace, created over time for discovery.`,
      created_at: iso(lifecycle.createdMs),
      updated_at: iso(lastEditAt(lifecycle, Number.MAX_SAFE_INTEGER)),
      archived: lifecycle.archivedMs !== undefined,
      first_entry: new Date(firstEntryDayMs + 9 * 3_600_000).toISOString(),
      last_entry: new Date((lastEntryDayMs ?? firstEntryDayMs + 700 * DAY) + 20 * 3_600_000).toISOString(),
    },
  };
}

/** The details a Canvas answers at `nowMs`: `updated_at` is its latest edit so far, `archived` whether it is archived yet. */
export function canvasDetailsAt(canvas: Canvas, nowMs: number): CanvasDetails {
  return {
    ...structuredClone(canvas.details),
    updated_at: iso(lastEditAt(canvas.lifecycle, nowMs)),
    archived: archivedAt(canvas.lifecycle, nowMs),
  };
}

/** `light`: two or three steps instead of four to six, so a workspace of 165 Canvases stays cheap to summarise. */
function generateCanvas(
  seed: number,
  workspaceStartMs: number,
  shape: CatalogueShape,
  index: number,
  light = false,
): Canvas {
  // The catalogue's draws follow the demo id: a Canvas has the same steps and dates whatever its ids look like.
  const demoId = `cv_${index}`;
  const id = styledId(seed, shape.idStyle, demoId);
  const rng = createRng(Math.floor(hashUnit(seed, 'canvas', demoId) * 2 ** 32));
  const channels = [...new Set([pick(rng, CHANNELS), pick(rng, CHANNELS), 'email'])].sort();
  const stepCount = (light ? 2 : 4) + Math.floor(rng() * (light ? 2 : 3));
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
    return {
      name: `Variant ${k + 1}`,
      id: `${id}_variant_${k + 1}`,
      first_step_ids: first,
      ...(first.length === 1 ? { first_step_id: first[0]! } : {}),
    };
  });
  const firstEntryDayMs = workspaceStartMs + Math.floor(14 + rng() * 420) * DAY;
  // Canvas 4 is a finished seasonal Canvas: archived, with a last entry; its stats stop after that day.
  const archived = index === 4;
  const lastEntryDayMs = archived ? firstEntryDayMs + 75 * DAY : undefined;
  const createdAt = new Date(firstEntryDayMs - 3 * DAY).toISOString();
  const deletedSteps =
    index === 2
      ? [
          {
            id: `${id}_step_${stepCount + 1}`,
            name: `Old reminder (${stepCount + 1})`,
            channels: ['email'],
            messages: [
              { id: `${id}_step_${stepCount + 1}_msg_1`, channel: 'email', stepId: `${id}_step_${stepCount + 1}` },
            ],
          },
        ]
      : [];
  const updatedAt = new Date(firstEntryDayMs + 30 * DAY).toISOString();
  return {
    id,
    lifecycle: fixedLifecycle(createdAt, updatedAt, archived),
    details: {
      created_at: createdAt,
      updated_at: updatedAt,
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
