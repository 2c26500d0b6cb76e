// Email template info (spec 2.8) → one row of email_templates.
import type { ApiClient } from '../api/api-client.js';
import { fetchEmailTemplate } from '../api/metadata-endpoints.js';
import type { ExtractedRows } from './extracted-rows.js';
import { stringOrNull, timestampOrNull } from './extracted-rows.js';

export async function fetchEmailTemplateRows(client: ApiClient, id: string): Promise<ExtractedRows> {
  const t = await fetchEmailTemplate(client, id);
  return {
    upserts: [{
      table: 'email_templates',
      rows: [{
        email_template_id: id, template_name: stringOrNull(t.template_name), description: stringOrNull(t.description),
        subject: stringOrNull(t.subject), preheader: stringOrNull(t.preheader), body: stringOrNull(t.body),
        plaintext_body: stringOrNull(t.plaintext_body), should_inline_css: t.should_inline_css ?? null,
        tags: stringOrNull(t.tags), created_at: timestampOrNull(t.created_at), updated_at: timestampOrNull(t.updated_at),
      }],
    }],
    replaces: [],
  };
}
