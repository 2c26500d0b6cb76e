// Daily statistics of a Canvas, computed on demand: entries, conversions, conversions by entry time and revenue (kept
// in cents so sums stay exact), split over variants so the parts sum to the totals, and per-step message statistics.
// A window's summary is the sum of its days.
import type {
  CanvasChannelMessageStats,
  CanvasDataSeries,
  CanvasDataSummary,
  CanvasStepStats,
  CanvasVariantStats,
} from '../../api/types.js';
import { hashPrefix, hashUnit, hashUnitAfter } from '../random.js';
import { channelStats, type MessageOutcome } from './channel-stats-model.js';
import type { Canvas, CanvasMessageVariation } from './canvas-catalogue.js';
import type { SeriesSource } from './series-model.js';
import { dayShape } from './series-model.js';
import { DAY_MS, formatDay } from './time-units.js';

interface Totals {
  entries: number;
  conversions: number;
  conversionsByEntryTime: number;
  revenueCents: number;
}

/** A step message's statistics as served: the four fields of spec 2.7, then its channel's own. */
type MessageTotals = Record<string, number>;

interface StepTotals extends Omit<Totals, 'entries'> {
  /** Keyed by message variation id. */
  messages: Map<string, MessageTotals>;
}

export interface CanvasDay {
  total: Totals;
  /** Keyed by variant id; parts sum exactly to `total` (entries, conversions, revenue). */
  variants: Map<string, Totals>;
  /** Keyed by step id, live and deleted steps. */
  steps: Map<string, StepTotals>;
}

function zero(): Totals {
  return { entries: 0, conversions: 0, conversionsByEntryTime: 0, revenueCents: 0 };
}

/** Split an integer into parts proportional to weights; the last part takes the remainder so the sum is exact. */
function split(value: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((value * w) / sum));
  parts[parts.length - 1]! += value - parts.reduce((a, b) => a + b, 0);
  return parts;
}

/**
 * What every day of a Canvas shares: its variants' weights and its steps (live, then deleted) with their messages and
 * conversion shares. A window's days are computed from one of these instead of each working it out again.
 */
export interface CanvasParts {
  variantWeights: number[];
  steps: { id: string; messages: CanvasMessageVariation[]; share: number }[];
  /** Every message variation, live and of deleted steps, by step id in the Canvas's order: what the breakdown lists. */
  messagesByStep: Map<string, CanvasMessageVariation[]>;
}

function canvasParts(seed: number, canvas: Canvas): CanvasParts {
  const steps = [
    ...canvas.details.steps.map((s) => ({ id: s.id, messages: canvas.messages.filter((m) => m.stepId === s.id) })),
    ...canvas.deletedSteps.map((s) => ({ id: s.id, messages: s.messages })),
  ];
  const messagesByStep = new Map<string, CanvasMessageVariation[]>();
  for (const m of [...canvas.messages, ...canvas.deletedSteps.flatMap((s) => s.messages)]) {
    const list = messagesByStep.get(m.stepId);
    if (list) list.push(m);
    else messagesByStep.set(m.stepId, [m]);
  }
  return {
    variantWeights: canvas.details.variants.map((v) => 1 + hashUnit(seed, 'variant-weight', v.id)),
    steps: steps.map((step) => ({ ...step, share: 0.2 + 0.5 * hashUnit(seed, 'step-share', step.id) })),
    messagesByStep,
  };
}

/**
 * Stats of one UTC day as seen at `nowMs`: undefined when the day has not begun; the elapsed fraction of the day's
 * entries for the current day; zero before the first entry and after the last entry of an archived Canvas.
 */
export function canvasDay(
  source: SeriesSource,
  canvas: Canvas,
  dayStartMs: number,
  nowMs: number,
  parts: CanvasParts = canvasParts(source.seed, canvas),
): CanvasDay | undefined {
  if (dayStartMs > nowMs) return undefined;
  const seed = source.seed;
  const active =
    dayStartMs >= canvas.firstEntryDayMs &&
    (canvas.lastEntryDayMs === undefined || dayStartMs <= canvas.lastEntryDayMs);
  const elapsed = Math.min(1, (nowMs - dayStartMs) / DAY_MS);
  const factor = source.restatementFactor('canvas', dayStartMs, { canvasId: canvas.id });
  const prefix = hashPrefix(seed, canvas.id, dayStartMs);
  const u = (...parts: (string | number)[]): number => hashUnitAfter(prefix, ...parts);
  const entries = active
    ? Math.floor(canvas.entriesPerDay * dayShape(source, dayStartMs) * (0.85 + 0.3 * u('entries')) * elapsed * factor)
    : 0;
  const conversions = Math.floor(entries * canvas.conversionRate * (0.8 + 0.4 * u('conversions')));
  const total: Totals = {
    entries,
    conversions,
    conversionsByEntryTime: Math.floor(conversions * (0.85 + 0.25 * u('by-entry'))),
    revenueCents: conversions * canvas.revenuePerConversionCents + (conversions > 0 ? Math.floor(u('cents') * 100) : 0),
  };
  const variantIds = canvas.details.variants.map((v) => v.id);
  const weights = parts.variantWeights;
  const entriesParts = split(total.entries, weights);
  const conversionParts = split(total.conversions, weights);
  const byEntryParts = split(total.conversionsByEntryTime, weights);
  const revenueParts = split(total.revenueCents, weights);
  const variants = new Map<string, Totals>();
  variantIds.forEach((id, k) => {
    variants.set(id, {
      entries: entriesParts[k]!,
      conversions: conversionParts[k]!,
      conversionsByEntryTime: byEntryParts[k]!,
      revenueCents: revenueParts[k]!,
    });
  });
  const steps = new Map<string, StepTotals>();
  parts.steps.forEach((step, k) => {
    // Later steps reach fewer users; a step is credited with a share of the conversions it influenced.
    const reach = 1 / (1 + 0.35 * k);
    const share = step.share;
    const stepConversions = Math.floor(total.conversions * share);
    steps.set(step.id, {
      conversions: stepConversions,
      conversionsByEntryTime: Math.floor(total.conversionsByEntryTime * share),
      revenueCents: Math.floor(total.revenueCents * share),
      messages: new Map(step.messages.map((m) => [m.id, messageDay(seed, m, dayStartMs, Math.floor(entries * reach))])),
    });
  });
  return { total, variants, steps };
}

function messageDay(seed: number, message: CanvasMessageVariation, dayStartMs: number, reached: number): MessageTotals {
  const messagePrefix = hashPrefix(seed, message.id, dayStartMs);
  return messageTotals(message, reached, (part) => hashUnitAfter(messagePrefix, part));
}

/** A message's statistics when `reached` users reached its step, `u` drawing its day's numbers. */
function messageTotals(message: CanvasMessageVariation, reached: number, u: (part: string) => number): MessageTotals {
  const sent = Math.floor(reached * (0.9 + 0.1 * u('sent')));
  // SMS and webhooks have no opens: the spec's `opens` is 0 for them.
  const openRate =
    message.channel === 'email' ? 0.25 : message.channel === 'sms' || message.channel === 'webhook' ? 0 : 0.08;
  const opens = Math.floor(sent * openRate * (0.8 + 0.4 * u('opens')));
  const bounces = message.channel === 'email' || message.channel === 'sms' ? Math.floor(sent * 0.02 * u('bounces')) : 0;
  const delivered = sent - bounces;
  const uniqueOpens = Math.floor(opens * (0.75 + 0.2 * u('unique-opens')));
  const uniqueClicks = Math.floor(uniqueOpens * 0.25 * u('clicks'));
  const outcome: MessageOutcome = {
    sent,
    bounces,
    delivered,
    opens,
    uniqueOpens,
    uniqueClicks,
    clicks: uniqueClicks + Math.floor(uniqueClicks * 0.4 * u('reclicks')),
    unsubscribes:
      message.channel === 'email' || message.channel === 'sms' ? Math.floor(delivered * 0.004 * u('unsubscribes')) : 0,
  };
  // The spec's four first; the channel's own fields repeat `sent`, `opens` (email) and `bounces` with the same values.
  return {
    sent,
    opens,
    influenced_opens: Math.floor(opens * 0.15 * u('influenced')),
    bounces,
    ...channelStats(message.channel, outcome, u, false),
  };
}

export interface SummaryOptions {
  includeVariantBreakdown: boolean;
  includeStepBreakdown: boolean;
  includeDeletedStepData: boolean;
}

/** The data summary of a window: the sum of its days (days not yet begun contribute nothing). */
export function canvasSummary(
  source: SeriesSource,
  canvas: Canvas,
  dayStarts: readonly number[],
  nowMs: number,
  opts: SummaryOptions,
  parts: CanvasParts = canvasParts(source.seed, canvas),
): CanvasDataSummary {
  const days = dayStarts
    .map((d) => canvasDay(source, canvas, d, nowMs, parts))
    .filter((d): d is CanvasDay => d !== undefined);
  const add = (a: Totals, b: Totals): Totals => ({
    entries: a.entries + b.entries,
    conversions: a.conversions + b.conversions,
    conversionsByEntryTime: a.conversionsByEntryTime + b.conversionsByEntryTime,
    revenueCents: a.revenueCents + b.revenueCents,
  });
  const total = days.reduce((acc, d) => add(acc, d.total), zero());
  const summary: CanvasDataSummary = {
    name: canvas.details.name,
    total_stats: {
      revenue: total.revenueCents / 100,
      conversions: total.conversions,
      conversions_by_entry_time: total.conversionsByEntryTime,
      entries: total.entries,
    },
  };
  if (opts.includeVariantBreakdown) {
    const variantStats: Record<string, CanvasVariantStats> = {};
    for (const variant of canvas.details.variants) {
      const sum = days.reduce((acc, d) => add(acc, d.variants.get(variant.id) ?? zero()), zero());
      // conversions_by_entry_time is not in spec 2.7; the vendor's documentation gives variants one.
      variantStats[variant.id] = {
        name: variant.name,
        revenue: sum.revenueCents / 100,
        conversions: sum.conversions,
        entries: sum.entries,
        conversions_by_entry_time: sum.conversionsByEntryTime,
      };
    }
    summary.variant_stats = variantStats;
  }
  if (opts.includeStepBreakdown) {
    const stepStats: Record<string, CanvasStepStats> = {};
    const steps = [
      ...canvas.details.steps.map((s) => ({ id: s.id, name: s.name })),
      ...(opts.includeDeletedStepData ? canvas.deletedSteps.map((s) => ({ id: s.id, name: s.name })) : []),
    ];
    for (const step of steps) {
      const stepMessages = parts.messagesByStep.get(step.id) ?? [];
      let conversions = 0;
      let byEntry = 0;
      let cents = 0;
      // A message that reached no one: every field of its channel, at zero (no draw matters when no one was reached).
      const perMessage = new Map<string, MessageTotals>(stepMessages.map((m) => [m.id, messageTotals(m, 0, () => 0)]));
      for (const day of days) {
        const s = day.steps.get(step.id);
        if (!s) continue;
        conversions += s.conversions;
        byEntry += s.conversionsByEntryTime;
        cents += s.revenueCents;
        for (const [id, m] of s.messages) {
          const acc = perMessage.get(id)!;
          for (const [field, value] of Object.entries(m)) acc[field] = (acc[field] ?? 0) + value;
        }
      }
      const messages: Record<string, CanvasChannelMessageStats[]> = {};
      for (const m of stepMessages) {
        const acc = perMessage.get(m.id)!;
        (messages[m.channel] ??= []).push({
          sent: acc.sent!,
          opens: acc.opens!,
          influenced_opens: acc.influenced_opens!,
          bounces: acc.bounces!,
          ...acc,
        });
      }
      stepStats[step.id] = {
        name: step.name,
        revenue: cents / 100,
        conversions,
        conversions_by_entry_time: byEntry,
        messages,
      };
    }
    summary.step_stats = stepStats;
  }
  return summary;
}

/**
 * What `/canvas/data_series` answers: one element per day that has begun at `nowMs` (later days are absent, as in every
 * series), each exactly the `data` of a one-day data summary of that day, without `name`, with `time` the day.
 */
export function canvasDailyStats(
  source: SeriesSource,
  canvas: Canvas,
  dayStarts: readonly number[],
  nowMs: number,
  opts: SummaryOptions,
): CanvasDataSeries {
  const parts = canvasParts(source.seed, canvas);
  const stats = dayStarts
    .filter((d) => d <= nowMs)
    .map((d) => {
      const day = canvasSummary(source, canvas, [d], nowMs, opts, parts);
      return {
        time: formatDay(d),
        total_stats: day.total_stats,
        ...(day.variant_stats ? { variant_stats: day.variant_stats } : {}),
        ...(day.step_stats ? { step_stats: day.step_stats } : {}),
      };
    });
  return { name: canvas.details.name, stats };
}
