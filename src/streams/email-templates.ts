// email_templates: GET /templates/email/info (spec 4.15 / 2.8), one request per listed template.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchEmailTemplate } from '../api/metadata-endpoints.js';
import { stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { perIdStream } from './stream-declaration.js';

export interface EmailTemplatesOptions {
  ids: readonly string[];
}

const table = defineTable({
  name: 'email_templates',
  description: 'Email templates: names, subject, bodies and edit times.',
  columns: [
    col('email_template_id', 'VARCHAR'), col('template_name', 'VARCHAR'), col('description', 'VARCHAR'), col('subject', 'VARCHAR'),
    col('preheader', 'VARCHAR'), col('body', 'VARCHAR'), col('plaintext_body', 'VARCHAR'), col('should_inline_css', 'BOOLEAN'),
    col('tags', 'VARCHAR'), col('created_at', 'TIMESTAMP'), col('updated_at', 'TIMESTAMP'),
  ],
  key: ['email_template_id'],
});

export const emailTemplatesStream = perIdStream({
  kind: 'per_id',
  name: 'email_templates',
  description: 'Each listed email template\'s info.',
  endpoint: ENDPOINTS.emailTemplateInfo,
  tables: [table],
  options: { keys: ['ids'], example: '{ ids: [tpl_1] }', read: (r): EmailTemplatesOptions => ({ ids: r.ids('ids', 'email template ids, e.g. ids: [tpl_1]') }) },
  ids: (o) => o.ids,
  fetch: async (client, id) => {
    const t = await fetchEmailTemplate(client, id);
    return {
      upserts: [rowsOf(table, [{
        email_template_id: id, template_name: stringOrNull(t.template_name), description: stringOrNull(t.description),
        subject: stringOrNull(t.subject), preheader: stringOrNull(t.preheader), body: stringOrNull(t.body),
        plaintext_body: stringOrNull(t.plaintext_body), should_inline_css: t.should_inline_css ?? null,
        tags: stringOrNull(t.tags), created_at: timestampOrNull(t.created_at), updated_at: timestampOrNull(t.updated_at),
      }])],
      replaces: [],
    };
  },
});
