// The metadata reads (spec 4.3, 4.13, 4.15, 4.16): data integrations (Link-paginated), Canvas details, email templates
// and content blocks, campaign and segment details. Bodies are checked for the fields the export stores; extra fields pass through.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { ENDPOINTS } from './endpoints.js';
import { paginateLink } from './paginate-link.js';
import { checkStringParam, contextOf, isRecord, malformed, readNumber } from './response-shape.js';
import type {
  CampaignDetailsBody,
  CanvasDetails,
  ContentBlock,
  DataIntegration,
  EmailTemplate,
  SegmentDetailsBody,
} from './types.js';

/** GET /cdi/integrations, following `rel="next"` links: each yield is one page (at most CDI_PAGE_SIZE integrations). */
export async function* listDataIntegrations(client: ApiClient): AsyncGenerator<DataIntegration[]> {
  const call: ApiCall = { endpoint: ENDPOINTS.cdiIntegrations };
  for await (const response of paginateLink<unknown>(client, call, {
    itemsOf: (body) => (isRecord(body) && Array.isArray(body.results) ? body.results : []),
  })) {
    const ctx = { ...contextOf(call), params: Object.fromEntries(new URL(response.url).searchParams) };
    const body = response.body;
    if (!isRecord(body) || !Array.isArray(body.results))
      throw malformed(ctx, '`results` is missing or not an array', body, response.status);
    yield body.results.map((item: unknown, i: number) => {
      if (!isRecord(item) || typeof item.integration_id !== 'string' || item.integration_id === '') {
        throw malformed(
          ctx,
          `results[${i}] has no integration_id string: ${JSON.stringify(item)}`,
          body,
          response.status,
        );
      }
      return item as unknown as DataIntegration;
    });
  }
}

/** GET /canvas/details?canvas_id=… */
export async function fetchCanvasDetails(client: ApiClient, canvasId: string): Promise<CanvasDetails> {
  checkStringParam('canvasId', canvasId);
  return fetchRecord<CanvasDetails>(client, { endpoint: ENDPOINTS.canvasDetails, query: { canvas_id: canvasId } }, [
    'name',
  ]);
}

/** GET /templates/email/info?email_template_id=… */
export async function fetchEmailTemplate(client: ApiClient, emailTemplateId: string): Promise<EmailTemplate> {
  checkStringParam('emailTemplateId', emailTemplateId);
  return fetchRecord<EmailTemplate>(
    client,
    { endpoint: ENDPOINTS.emailTemplateInfo, query: { email_template_id: emailTemplateId } },
    ['email_template_id', 'template_name'],
  );
}

/** GET /content_blocks/info?content_block_id=…&include_inclusion_data=true|false (sent literally, as the spec asks). */
export async function fetchContentBlock(
  client: ApiClient,
  contentBlockId: string,
  includeInclusionData: boolean,
): Promise<ContentBlock> {
  checkStringParam('contentBlockId', contentBlockId);
  const call: ApiCall = {
    endpoint: ENDPOINTS.contentBlockInfo,
    query: { content_block_id: contentBlockId, include_inclusion_data: includeInclusionData },
  };
  const block = await fetchRecord<ContentBlock>(client, call, ['content_block_id', 'name']);
  const count: unknown = block.inclusion_count;
  if (count !== undefined && count !== null) {
    const read = readNumber(count, 'count');
    if ('problem' in read) throw malformed(contextOf(call), `field inclusion_count: ${read.problem}`, block);
  }
  return block;
}

async function fetchRecord<T>(client: ApiClient, call: ApiCall, requiredStrings: readonly string[]): Promise<T> {
  const response = await client.request<unknown>(call);
  const body = response.body;
  const ctx = contextOf(call);
  if (!isRecord(body)) throw malformed(ctx, 'the body is not a JSON object', body, response.status);
  for (const field of requiredStrings) {
    if (typeof body[field] !== 'string')
      throw malformed(ctx, `\`${field}\` is ${JSON.stringify(body[field])}, not a string`, body, response.status);
  }
  return body as T;
}

/** GET /campaigns/details?campaign_id=… */
export async function fetchCampaignDetails(client: ApiClient, campaignId: string): Promise<CampaignDetailsBody> {
  checkStringParam('campaignId', campaignId);
  const call: ApiCall = { endpoint: ENDPOINTS.campaignsDetails, query: { campaign_id: campaignId } };
  const details = await fetchRecord<CampaignDetailsBody>(client, call, ['name']);
  const messages: unknown = details.messages;
  if (messages !== undefined && messages !== null && !isRecord(messages)) {
    throw malformed(
      contextOf(call),
      `\`messages\` is ${JSON.stringify(messages)}, not an object keyed by variation id`,
      details,
    );
  }
  return details;
}

/** GET /segments/details?segment_id=… */
export async function fetchSegmentDetails(client: ApiClient, segmentId: string): Promise<SegmentDetailsBody> {
  checkStringParam('segmentId', segmentId);
  return fetchRecord<SegmentDetailsBody>(
    client,
    { endpoint: ENDPOINTS.segmentsDetails, query: { segment_id: segmentId } },
    ['name'],
  );
}
