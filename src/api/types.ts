// The platform's wire shapes (spec sections 2 and 4), shared by the client and the emulator — and nothing else is shared
// between them. Shapes are what the spec documents; a server may add fields, and the client must tolerate that.

export type SeriesUnit = 'day' | 'hour';

/** Every body of a successful read carries `message: "success"`. */
export interface SuccessBody {
  message: string;
}

// ---- 4.10 / 4.11 / 4.19 / 4.20 analytics series ----------------------------------------------------------------

export interface PurchaseQuantityPoint {
  time: string;
  purchase_quantity: number;
}
export interface RevenuePoint {
  time: string;
  revenue: number;
}
export interface SessionsPoint {
  time: string;
  sessions: number;
}
export interface SegmentSizePoint {
  time: string;
  size: number;
}

export interface SeriesBody<P> extends SuccessBody {
  data: P[];
}

// ---- 4.12 events list ----------------------------------------------------------------------------------------------

export interface EventsListBody extends SuccessBody {
  events: string[];
}

// ---- 2.3 / 4.3 data integrations -------------------------------------------------------------------------------------

export interface DataIntegration {
  integration_id: string;
  app_group_id: string;
  integration_name: string;
  integration_type: string;
  integration_status: string;
  contact_emails: string;
  last_updated_at: string;
  warehouse_type: string;
  last_job_start_time: string;
  last_job_status: string;
  next_scheduled_run: string;
}

export interface DataIntegrationsBody extends SuccessBody {
  results: DataIntegration[];
}

// ---- 2.6 / 4.13 Canvas details ---------------------------------------------------------------------------------------

export interface CanvasVariant {
  name: string;
  id: string;
  first_step_ids: string[];
  /** Deprecated since November 2017; present only when the variant has a single first step. */
  first_step_id?: string;
}

export interface CanvasNextPath {
  name: string | null;
  next_step_id: string;
}

export interface CanvasMessage {
  channel: string;
  [field: string]: unknown;
}

export interface CanvasStep {
  name: string;
  type: string;
  id: string;
  next_step_ids: string[];
  next_paths: CanvasNextPath[];
  channels: string[];
  messages: Record<string, CanvasMessage>;
}

export interface CanvasDetails {
  created_at: string;
  updated_at: string;
  name: string;
  description: string;
  archived: boolean;
  draft: boolean;
  schedule_type: string;
  first_entry: string;
  last_entry: string;
  channels: string[];
  variants: CanvasVariant[];
  tags: string[];
  teams: string[];
  steps: CanvasStep[];
  message: string;
}

// ---- 2.7 / 4.14 Canvas data summary ----------------------------------------------------------------------------------

export interface CanvasTotalStats {
  revenue: number;
  conversions: number;
  conversions_by_entry_time: number;
  entries: number;
}

export interface CanvasVariantStats {
  name: string;
  revenue: number;
  conversions: number;
  entries: number;
  /** Not in spec 2.7; the vendor's documentation adds it. */
  conversions_by_entry_time?: number;
}

/** The four fields of spec 2.7, then the channel's own statistics (as a campaign variation's: channel-stats.ts). */
export interface CanvasChannelMessageStats {
  sent: number;
  opens: number;
  influenced_opens: number;
  bounces: number;
  [channelSpecific: string]: unknown;
}

export interface CanvasStepStats {
  name: string;
  revenue: number;
  conversions: number;
  conversions_by_entry_time: number;
  /** Keyed by channel name; each channel holds an array (one entry per message of the step on that channel). */
  messages: Record<string, CanvasChannelMessageStats[]>;
}

export interface CanvasDataSummary {
  name: string;
  total_stats: CanvasTotalStats;
  variant_stats?: Record<string, CanvasVariantStats>;
  step_stats?: Record<string, CanvasStepStats>;
}

export interface CanvasDataSummaryBody extends SuccessBody {
  data: CanvasDataSummary;
}

// ---- 2.8 / 4.15 email template ---------------------------------------------------------------------------------------

export interface EmailTemplate {
  email_template_id: string;
  template_name: string;
  description: string;
  subject: string;
  preheader?: string;
  body?: string;
  plaintext_body?: string;
  should_inline_css?: boolean;
  tags: string;
  created_at: string;
  updated_at: string;
  message?: string;
}

// ---- 2.9 / 4.16 content block ----------------------------------------------------------------------------------------

export interface ContentBlock {
  content_block_id: string;
  name: string;
  content: string;
  description: string;
  content_type: 'html' | 'text';
  tags: string[];
  created_at: string;
  last_edited: string;
  inclusion_count: number;
  inclusion_data?: unknown[];
  message: string;
}

// ---- 2.5 / 4.9 preference center -------------------------------------------------------------------------------------

export interface PreferenceCenterUpdateBody extends SuccessBody {
  preference_center_api_id: string;
  created_at: string;
  updated_at: string;
}

// ---- 4.1 subscription status ----------------------------------------------------------------------------------------

export type SubscriptionState = 'subscribed' | 'unsubscribed';

// ---- 2.2 / 4.2 user attributes ---------------------------------------------------------------------------------------

export interface UserAlias {
  alias_name: string;
  alias_label: string;
}

export interface UsersTrackBody extends SuccessBody {
  attributes_processed?: number;
  errors?: { type: string; input_array: string; index: number }[];
}

// ---- 4.6 / 4.7 external IDs ------------------------------------------------------------------------------------------

export interface ExternalIdRename {
  current_external_id: string;
  new_external_id: string;
}

export interface ExternalIdRenameBody extends SuccessBody {
  /** The spec says strings; the live service answers objects ({current_external_id, new_external_id}). Accept both. */
  external_ids: (string | ExternalIdRename)[];
  rename_errors: unknown[][];
}

export interface ExternalIdRemoveBody extends SuccessBody {
  removed_ids: string[];
  removal_errors: unknown[][];
}

// ---- 4.4 / 4.5 / 7.1 catalogs ----------------------------------------------------------------------------------------

export type CatalogErrorId =
  | 'catalog-not-found'
  | 'ids-not-strings'
  | 'ids-not-unique'
  | 'ids-too-large'
  | 'invalid-ids'
  | 'invalid-fields'
  | 'invalid-keys-in-value-object'
  | 'item-array-invalid'
  | 'items-missing-ids'
  | 'items-too-large'
  | 'request-includes-too-many-items'
  | 'too-deep-nesting-in-value-object'
  | 'unable-to-coerce-value'
  | 'arbitrary-error'
  | 'filtered-set-field-too-long'
  | 'id-in-body'
  | 'item-not-found';

export interface CatalogError {
  id: CatalogErrorId;
  message: string;
  parameters: string[];
  parameter_values: string[];
}

export interface CatalogErrorBody {
  errors: CatalogError[];
  message: 'Invalid Request';
}

// ---- 4.8 SCIM --------------------------------------------------------------------------------------------------------

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface ScimErrorBody {
  schemas: string[];
  detail: string;
  status: number;
}

export interface ScimUser {
  schemas: string[];
  id: string;
  userName: string;
  name?: { givenName?: string; familyName?: string };
  department?: string;
  lastSignInAt?: string;
  createdAt?: string;
  permissions?: Record<string, unknown>;
}

export interface ScimListBody {
  schemas: string[];
  totalResults: number;
  Resources: ScimUser[];
}

// ---- events, KPI and Canvas daily series ---------------------------------------------------------------------------

/** `GET /events/data_series`: occurrences of one custom event per unit. */
export interface EventCountPoint {
  time: string;
  count: number;
}

/** The four daily KPIs, each served by `/kpi/<metric>/data_series` with the metric's name as the value field. */
export const KPI_METRICS = ['dau', 'mau', 'new_users', 'uninstalls'] as const;
export type KpiMetric = (typeof KPI_METRICS)[number];
export type KpiPoint<M extends KpiMetric = KpiMetric> = { time: string } & { [K in M]: number };

/** One day of `GET /canvas/data_series`: the same fields as the `data` of a one-day data summary, minus `name`. */
export interface CanvasDataSeriesStats extends Omit<CanvasDataSummary, 'name'> {
  /** The day, `YYYY-MM-DD`. */
  time: string;
}

export interface CanvasDataSeries {
  name: string;
  stats: CanvasDataSeriesStats[];
}

export interface CanvasDataSeriesBody extends SuccessBody {
  data: CanvasDataSeries;
}

// ---- discovery: list endpoints, segment and campaign details ----------------------------------------------------------

/** One entry of `/canvas/list`. */
export interface CanvasListEntry {
  id: string;
  name: string;
  /** ISO 8601 instant of the latest edit. */
  last_edited: string;
  tags: string[];
}

export interface CanvasListBody extends SuccessBody {
  canvases: CanvasListEntry[];
}

/** One entry of `/campaigns/list`. */
export interface CampaignListEntry extends CanvasListEntry {
  is_api_campaign: boolean;
}

export interface CampaignListBody extends SuccessBody {
  campaigns: CampaignListEntry[];
}

export interface SegmentListEntry {
  id: string;
  name: string;
  analytics_tracking_enabled: boolean;
  tags: string[];
}

export interface SegmentListBody extends SuccessBody {
  segments: SegmentListEntry[];
}

export interface SegmentDetailsBody extends SuccessBody {
  name: string;
  description: string;
  text_description: string;
  created_at: string;
  updated_at: string;
  tags: string[];
  teams: string[];
}

/** A message variation of a campaign, keyed by its id in `messages`; channel-specific fields vary. */
export interface CampaignMessage {
  channel: string;
  name: string;
  [channelSpecific: string]: unknown;
}

export interface CampaignConversionBehavior {
  type: string;
  /** Seconds after receipt during which a conversion counts. */
  window: number;
  [further: string]: unknown;
}

export interface CampaignDetailsBody extends SuccessBody {
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
  archived: boolean;
  draft: boolean;
  enabled: boolean;
  schedule_type: string;
  channels: string[];
  /** ISO 8601 instant of the first send; null while nothing has been sent. */
  first_sent: string | null;
  last_sent: string | null;
  tags: string[];
  teams: string[];
  /** Keyed by message variation id. */
  messages: Record<string, CampaignMessage>;
  conversion_behaviors: CampaignConversionBehavior[];
}

/**
 * Statistics of one message variation on one day. The fields differ per channel (src/api/channel-stats.ts lists the
 * documented ones); every one of them is optional on the wire, `variation_api_id` included.
 */
export interface CampaignVariationStats {
  variation_api_id?: string;
  variation_name?: string;
  /** USD. */
  revenue?: number;
  [field: string]: unknown;
}

export interface CampaignSeriesPoint {
  /** UTC date, `YYYY-MM-DD`. */
  time: string;
  unique_recipients: number;
  conversions: number;
  conversions1?: number;
  conversions2?: number;
  conversions3?: number;
  conversions_by_send_time?: number;
  conversions1_by_send_time?: number;
  conversions2_by_send_time?: number;
  conversions3_by_send_time?: number;
  /** USD. */
  revenue?: number;
  /** Keyed by channel. */
  messages: Record<string, CampaignVariationStats[]>;
}

export type CampaignSeriesBody = SeriesBody<CampaignSeriesPoint>;

export interface ProductListBody extends SuccessBody {
  products: string[];
}

export interface EmailTemplateListEntry {
  email_template_id: string;
  template_name: string;
  created_at: string;
  updated_at: string;
  tags: string[];
}

export interface EmailTemplateListBody {
  /** Number of templates matching the filters (all pages). Optional: another server may leave it out. */
  count?: number;
  templates: EmailTemplateListEntry[];
  message?: string;
}

export interface ContentBlockListEntry {
  content_block_id: string;
  name: string;
  content_type: 'html' | 'text';
  liquid_tag: string;
  inclusion_count: number;
  created_at: string;
  last_edited: string;
  tags: string[];
}

export interface ContentBlockListBody {
  count?: number;
  content_blocks: ContentBlockListEntry[];
  message?: string;
}
