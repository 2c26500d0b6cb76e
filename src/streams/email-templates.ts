// email_templates: GET /templates/email/info (spec 4.15 / 2.8), one request per listed template.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchEmailTemplate } from '../api/metadata-endpoints.js';
import { stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import type { IdSelection } from './option-reader.js';
import { perIdStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { EMAIL_TEMPLATE_LIST, idListDiscovery } from './workspace-lists.js';

export interface EmailTemplatesOptions {
  /** Ids, or `all`: every object the list shows. */
  ids: IdSelection;
}

const table = defineTable({
  name: 'email_templates',
  description: 'Email templates: names, subject, bodies and edit times.',
  columns: [
    col('email_template_id', 'VARCHAR'),
    col('template_name', 'VARCHAR'),
    col('description', 'VARCHAR'),
    col('subject', 'VARCHAR'),
    col('preheader', 'VARCHAR'),
    col('body', 'VARCHAR'),
    col('plaintext_body', 'VARCHAR'),
    col('should_inline_css', 'BOOLEAN'),
    col('tags', 'VARCHAR'),
    col('created_at', 'TIMESTAMP'),
    col('updated_at', 'TIMESTAMP'),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['email_template_id'],
});

export const emailTemplatesStream = perIdStream({
  kind: 'per_id',
  name: 'email_templates',
  description: "Each listed email template's info.",
  endpoint: ENDPOINTS.emailTemplateInfo,
  tables: [table],
  options: {
    keys: ['ids'],
    example: '{ ids: all }',
    read: (r): EmailTemplatesOptions => ({ ids: r.idSelection('ids', 'ids: [tpl_1]') }),
  },
  discovery: idListDiscovery<EmailTemplatesOptions>(
    EMAIL_TEMPLATE_LIST,
    (o) => o.ids,
    (o, ids) => ({ ...o, ids }),
  ),
  references: (o) => idReference('ids', EMAIL_TEMPLATE_LIST, o.ids.ids),
  ids: (o) => o.ids.ids,
  fetch: async (client, id, _o, listed) => {
    const t = await fetchEmailTemplate(client, id);
    return {
      upserts: [
        rowsOf(table, [
          {
            email_template_id: id,
            template_name: stringOrNull(t.template_name),
            description: stringOrNull(t.description),
            subject: stringOrNull(t.subject),
            preheader: stringOrNull(t.preheader),
            body: stringOrNull(t.body),
            plaintext_body: stringOrNull(t.plaintext_body),
            should_inline_css: t.should_inline_css ?? null,
            tags: stringOrNull(t.tags),
            created_at: timestampOrNull(t.created_at),
            updated_at: timestampOrNull(t.updated_at),
            ...discoveredValues(listed),
          },
        ]),
      ],
      replaces: [],
    };
  },
});
