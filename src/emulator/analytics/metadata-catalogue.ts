// Metadata of the seeded workspace that is not a series: email templates, content blocks (one deleted; inclusions in
// Canvas message variations), data integrations (enough for several pages) and custom event names (several pages too).
import type { DataIntegration, EmailTemplate } from '../../api/types.js';
import { createRng, hashUnit, pick } from '../random.js';
import { countFor } from './analytics-catalogue.js';
import type { Canvas } from './canvas-catalogue.js';

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
  /** Message variation ids that include the block (all Canvases, archived ones too; the route filters). */
  includedIn: { messageId: string; canvasId: string }[];
}

const ISO_BASE = Date.UTC(2023, 0, 1);
const DAY = 86_400_000;

function isoAfterBase(seed: number, ...parts: (string | number)[]): string {
  return new Date(ISO_BASE + Math.floor(hashUnit(seed, 'date', ...parts) * 700 * DAY)).toISOString();
}

export function generateTemplates(seed: number): EmailTemplate[] {
  const n = countFor(seed, 'templates', 8, 6, 10);
  const subjects = ['Welcome aboard', 'We miss you', 'Your weekly gems', 'Flash sale ends tonight', 'New levels unlocked', 'Your receipt', 'Holiday bonus', 'VIP perks'];
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

export function generateContentBlocks(seed: number, canvases: readonly Canvas[]): ContentBlockRecord[] {
  const n = countFor(seed, 'content-blocks', 8, 6, 10);
  const blocks: ContentBlockRecord[] = Array.from({ length: n }, (_, i) => {
    const id = `cb_${i + 1}`;
    const html = i % 3 !== 2;
    const created = isoAfterBase(seed, id, 'created');
    return {
      id,
      name: `Block ${i + 1}: ${['header', 'footer', 'promo banner', 'legal', 'social links', 'app badges', 'signature', 'retired promo'][i % 8]}`,
      content: html ? `<div class="block-${i + 1}">Block ${i + 1}</div>` : `Block ${i + 1} plain text`,
      description: `Content block ${i + 1} of the emulator workspace.`,
      contentType: html ? 'html' : 'text',
      tags: i % 2 === 0 ? ['shared'] : ['shared', 'promo'],
      createdAt: created,
      lastEdited: new Date(Date.parse(created) + (2 + i) * DAY).toISOString(),
      // The last block is deleted, so the "has been deleted" error has a real subject.
      deleted: i === n - 1,
      includedIn: [],
    };
  });
  const live = blocks.filter((b) => !b.deleted);
  for (const canvas of canvases) {
    for (const msg of canvas.messages) {
      const rng = createRng(Math.floor(hashUnit(seed, 'inclusion', msg.id) * 2 ** 32));
      // About two in three messages include one block; header blocks (cb_1) are included the most.
      if (rng() < 0.67) pick(rng, [live[0]!, ...live]).includedIn.push({ messageId: msg.id, canvasId: canvas.id });
    }
  }
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

const VERBS = ['added', 'bought', 'cancelled', 'claimed', 'clicked', 'closed', 'completed', 'crafted', 'deleted', 'downloaded', 'earned', 'equipped', 'failed', 'finished', 'gifted', 'joined', 'left', 'liked', 'lost', 'opened', 'played', 'rated', 'redeemed', 'reset', 'searched', 'shared', 'skipped', 'started', 'unlocked', 'upgraded', 'viewed', 'won'];
const OBJECTS = ['achievement', 'ad', 'avatar', 'badge', 'booster', 'bundle', 'challenge', 'chest', 'coupon', 'daily_quest', 'friend', 'guild', 'hint', 'inventory', 'level', 'lives', 'map', 'match', 'mission', 'offer', 'pet', 'profile', 'puzzle', 'raid', 'reward', 'season', 'shop', 'skin', 'streak', 'tournament', 'tutorial', 'wheel'];

/** Custom event names, sorted alphabetically (the order 4.12 promises). */
export function generateEventNames(seed: number): string[] {
  const n = countFor(seed, 'events', 612, 300, 900);
  const all = VERBS.flatMap((v) => OBJECTS.map((o) => `${o}_${v}`));
  // A seeded choice of n names out of the 1,024 combinations.
  const chosen = all
    .map((name) => ({ name, key: hashUnit(seed, 'event', name) }))
    .sort((a, b) => a.key - b.key)
    .slice(0, n)
    .map((e) => e.name);
  return chosen.sort();
}
