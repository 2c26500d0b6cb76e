// Metadata of the seeded workspace that is not a series: email templates, content blocks (one deleted; inclusions in
// Canvas message variations), data integrations (enough for several pages) and custom event names (several pages too).
// Templates and blocks after the original ones are created and edited over time, so the lists take several pages.
import type { DataIntegration, EmailTemplate } from '../../api/types.js';
import { createRng, hashUnit, pick } from '../random.js';
import { countFor } from './analytics-catalogue.js';
import type { Canvas } from './canvas-catalogue.js';
import type { Lifecycle } from './lifecycle.js';
import { ADDED_ID_BASE, fixedLifecycle, iso, lastEditAt, seededLifecycle } from './lifecycle.js';

export interface ContentBlockRecord {
  id: string;
  name: string;
  content: string;
  description: string;
  contentType: 'html' | 'text';
  tags: string[];
  createdAt: string;
  lastEdited: string;
  deleted: boolean;
  lifecycle: Lifecycle;
  /** Message variation ids that include the block (all Canvases, archived ones too; the route filters). */
  includedIn: { messageId: string; canvasId: string }[];
}

export interface TemplateRecord {
  /** The info answer as of the end of time: `templateAt` reads `updated_at` at an instant. */
  template: EmailTemplate;
  lifecycle: Lifecycle;
  /** Made in the drag-and-drop editor: the template list leaves it out (as the platform's does); its info still answers. */
  dragAndDrop: boolean;
}

/** Templates and content blocks added for discovery after the original ones: more than a list page of 100. */
export const ADDED_TEMPLATES = 140;
export const ADDED_CONTENT_BLOCKS = 140;

const ISO_BASE = Date.UTC(2023, 0, 1);
const DAY = 86_400_000;

function isoAfterBase(seed: number, ...parts: (string | number)[]): string {
  return new Date(ISO_BASE + Math.floor(hashUnit(seed, 'date', ...parts) * 700 * DAY)).toISOString();
}

export function generateTemplates(seed: number): TemplateRecord[] {
  const originals = generateOriginalTemplates(seed).map((template) => ({
    template,
    lifecycle: fixedLifecycle(template.created_at, template.updated_at),
    dragAndDrop: false,
  }));
  const added = Array.from({ length: ADDED_TEMPLATES }, (_, k): TemplateRecord => {
    const index = ADDED_ID_BASE + k;
    const lifecycle = seededLifecycle(seed, 'template', k, ADDED_TEMPLATES, { archivedShare: 0 });
    const subject = `Campaign ${index} news`;
    return {
      template: {
        email_template_id: `tpl_${index}`,
        template_name: k === 0 ? 'Drag-and-drop newsletter' : `${subject} template`,
        description: `Email template ${index} of the emulator workspace, created over time for discovery.`,
        subject,
        body: `<html><body><h1>${subject}</h1></body></html>`,
        plaintext_body: subject,
        should_inline_css: false,
        tags: k % 2 === 0 ? 'promo' : 'newsletter',
        created_at: iso(lifecycle.createdMs),
        updated_at: iso(lastEditAt(lifecycle, Number.MAX_SAFE_INTEGER)),
        message: 'success',
      },
      lifecycle,
      // The first added template is the one drag-and-drop template of the workspace.
      dragAndDrop: k === 0,
    };
  });
  return [...originals, ...added];
}

/** The info answer of a template at `nowMs`: `updated_at` is its latest edit so far. */
export function templateAt(record: TemplateRecord, nowMs: number): EmailTemplate {
  return { ...record.template, updated_at: iso(lastEditAt(record.lifecycle, nowMs)) };
}

/** How many templates and content blocks a seed had before discovery (8 each for seed 1); the added ones follow. */
export function originalTemplateCount(seed: number): number {
  return countFor(seed, 'templates', 8, 6, 10);
}

export function originalContentBlockCount(seed: number): number {
  return countFor(seed, 'content-blocks', 8, 6, 10);
}

function generateOriginalTemplates(seed: number): EmailTemplate[] {
  const n = originalTemplateCount(seed);
  const subjects = [
    'Welcome aboard',
    'We miss you',
    'Your weekly gems',
    'Flash sale ends tonight',
    'New levels unlocked',
    'Your receipt',
    'Holiday bonus',
    'VIP perks',
  ];
  return Array.from({ length: n }, (_, i) => {
    const id = `tpl_${i + 1}`;
    const created = isoAfterBase(seed, id, 'created');
    const subject = subjects[i % subjects.length]!;
    return {
      email_template_id: id,
      template_name: `${subject} template`,
      description: `Email template ${i + 1} of the emulator workspace.`,
      subject,
      preheader: `${subject} — open to see more`,
      body: `<html><body><h1>${subject}</h1><p>Hello {{\${first_name}}}</p>{{content_blocks.\${cb_${(i % 7) + 1}}}}</body></html>`,
      plaintext_body: `${subject}\n\nHello {{\${first_name}}}`,
      should_inline_css: i % 2 === 0,
      tags: i % 3 === 0 ? 'lifecycle, onboarding' : 'promo',
      created_at: created,
      updated_at: new Date(Date.parse(created) + (1 + (i % 5)) * DAY).toISOString(),
      message: 'success',
    };
  });
}

/**
 * The original blocks, included by the original Canvases' messages, then the added blocks, included only by the added
 * Canvases' messages (so the original blocks' inclusions stay as they were).
 */
export function generateContentBlocks(
  seed: number,
  originalCanvases: readonly Canvas[],
  addedCanvases: readonly Canvas[],
): ContentBlockRecord[] {
  const originals = generateOriginalContentBlocks(seed, originalCanvases);
  const added = Array.from({ length: ADDED_CONTENT_BLOCKS }, (_, k): ContentBlockRecord => {
    const index = ADDED_ID_BASE + k;
    const lifecycle = seededLifecycle(seed, 'content-block', k, ADDED_CONTENT_BLOCKS, { archivedShare: 0 });
    const html = k % 4 !== 3;
    return {
      id: `cb_${index}`,
      name: `Block ${index}: ${['banner', 'coupon', 'countdown', 'disclaimer'][k % 4]}`,
      content: html ? `<div class="block-${index}">Block ${index}</div>` : `Block ${index} plain text`,
      description: `Content block ${index} of the emulator workspace, created over time for discovery.`,
      contentType: html ? 'html' : 'text',
      tags: k % 3 === 0 ? ['promo'] : [],
      createdAt: iso(lifecycle.createdMs),
      lastEdited: iso(lastEditAt(lifecycle, Number.MAX_SAFE_INTEGER)),
      deleted: false,
      lifecycle,
      includedIn: [],
    };
  });
  includeBlocks(seed, addedCanvases, added);
  return [...originals, ...added];
}

/** About two in three messages include one block; the first block is included the most. */
function includeBlocks(seed: number, canvases: readonly Canvas[], blocks: readonly ContentBlockRecord[]): void {
  const live = blocks.filter((b) => !b.deleted);
  for (const canvas of canvases) {
    for (const msg of canvas.messages) {
      const rng = createRng(Math.floor(hashUnit(seed, 'inclusion', msg.id) * 2 ** 32));
      if (rng() < 0.67) pick(rng, [live[0]!, ...live]).includedIn.push({ messageId: msg.id, canvasId: canvas.id });
    }
  }
}

/** `last_edited` of a block at `nowMs`: its latest edit so far. */
export function contentBlockLastEditedAt(block: ContentBlockRecord, nowMs: number): string {
  return iso(lastEditAt(block.lifecycle, nowMs));
}

function generateOriginalContentBlocks(seed: number, canvases: readonly Canvas[]): ContentBlockRecord[] {
  const n = originalContentBlockCount(seed);
  const blocks: ContentBlockRecord[] = Array.from({ length: n }, (_, i) => {
    const id = `cb_${i + 1}`;
    const html = i % 3 !== 2;
    const created = isoAfterBase(seed, id, 'created');
    const lastEdited = new Date(Date.parse(created) + (2 + i) * DAY).toISOString();
    return {
      id,
      name: `Block ${i + 1}: ${['header', 'footer', 'promo banner', 'legal', 'social links', 'app badges', 'signature', 'retired promo'][i % 8]}`,
      content: html ? `<div class="block-${i + 1}">Block ${i + 1}</div>` : `Block ${i + 1} plain text`,
      description: `Content block ${i + 1} of the emulator workspace.`,
      contentType: html ? 'html' : 'text',
      tags: i % 2 === 0 ? ['shared'] : ['shared', 'promo'],
      createdAt: created,
      lastEdited,
      // The last block is deleted, so the "has been deleted" error has a real subject.
      deleted: i === n - 1,
      lifecycle: fixedLifecycle(created, lastEdited),
      includedIn: [],
    };
  });
  includeBlocks(seed, canvases, blocks);
  return blocks;
}

export function generateIntegrations(seed: number, appGroupId: string): DataIntegration[] {
  const n = countFor(seed, 'integrations', 23, 11, 35);
  const warehouses = ['snowflake', 'bigquery', 'redshift', 'databricks'];
  const types = ['users', 'catalogs', 'cohorts'];
  return Array.from({ length: n }, (_, i) => {
    const id = `int_${i + 1}`;
    const rng = createRng(Math.floor(hashUnit(seed, 'integration', id) * 2 ** 32));
    const warehouse = pick(rng, warehouses);
    const type = pick(rng, types);
    const lastStart = Date.parse(isoAfterBase(seed, id, 'job'));
    return {
      integration_id: id,
      app_group_id: appGroupId,
      integration_name: `${warehouse} ${type} sync ${i + 1}`,
      integration_type: type,
      integration_status: rng() < 0.8 ? 'active' : 'paused',
      contact_emails: `data-team-${(i % 3) + 1}@example.com`,
      last_updated_at: new Date(lastStart + 20 * 60_000).toISOString(),
      warehouse_type: warehouse,
      last_job_start_time: new Date(lastStart).toISOString(),
      last_job_status: rng() < 0.85 ? 'success' : 'error',
      next_scheduled_run: new Date(lastStart + DAY).toISOString(),
    };
  });
}

const VERBS = [
  'added',
  'bought',
  'cancelled',
  'claimed',
  'clicked',
  'closed',
  'completed',
  'crafted',
  'deleted',
  'downloaded',
  'earned',
  'equipped',
  'failed',
  'finished',
  'gifted',
  'joined',
  'left',
  'liked',
  'lost',
  'opened',
  'played',
  'rated',
  'redeemed',
  'reset',
  'searched',
  'shared',
  'skipped',
  'started',
  'unlocked',
  'upgraded',
  'viewed',
  'won',
];
const OBJECTS = [
  'achievement',
  'ad',
  'avatar',
  'badge',
  'booster',
  'bundle',
  'challenge',
  'chest',
  'coupon',
  'daily_quest',
  'friend',
  'guild',
  'hint',
  'inventory',
  'level',
  'lives',
  'map',
  'match',
  'mission',
  'offer',
  'pet',
  'profile',
  'puzzle',
  'raid',
  'reward',
  'season',
  'shop',
  'skin',
  'streak',
  'tournament',
  'tutorial',
  'wheel',
];

/** Custom event names, sorted alphabetically (the order 4.12 promises). */
export function generateEventNames(seed: number, count?: number): string[] {
  const n = count ?? countFor(seed, 'events', 612, 300, 900);
  const combos = VERBS.flatMap((v) => OBJECTS.map((o) => `${o}_${v}`));
  // Past the 1,024 combinations, numbered variants of them (`level_completed_2`).
  const all =
    n <= combos.length
      ? combos
      : Array.from({ length: n }, (_, i) =>
          i < combos.length ? combos[i]! : `${combos[i % combos.length]!}_${Math.floor(i / combos.length) + 1}`,
        );
  // A seeded choice of n names out of the 1,024 combinations.
  const chosen = all
    .map((name) => ({ name, key: hashUnit(seed, 'event', name) }))
    .sort((a, b) => a.key - b.key)
    .slice(0, n)
    .map((e) => e.name);
  return chosen.sort();
}
