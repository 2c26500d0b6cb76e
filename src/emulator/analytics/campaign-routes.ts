// Read routes of campaigns: details (the campaign as of now) and the daily data series (`length` 1–100 days ending
// with the day of `ending_at`, default now; days not yet begun are left out).
import { ENDPOINTS, MAX_CAMPAIGN_SERIES_LENGTH } from '../../api/endpoints.js';
import type { CampaignSeriesBody } from '../../api/types.js';
import type { Route } from '../route.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import type { Campaign } from './campaign-catalogue.js';
import { campaignDetailsAt } from './campaign-catalogue.js';
import { campaignSeries } from './campaign-stats.js';
import { instantParam, lengthParam, ParamError, readRoute, unitStartsEndingAt } from './query-params.js';
import { campaignAt } from './workspace-listing.js';

/** A campaign not yet created at `nowMs` is as unknown as one that never existed (400, as for a Canvas). */
function campaignParam(ws: AnalyticsWorkspace, query: URLSearchParams, nowMs: number): Campaign {
  const raw = query.get('campaign_id');
  if (raw === null || raw === '')
    throw new ParamError('campaign_id is required: the API identifier of a campaign (see /campaigns/list)');
  const campaign = campaignAt(ws, raw, nowMs);
  if (!campaign)
    throw new ParamError(
      `campaign_id ${JSON.stringify(raw.slice(0, 60))} is not a campaign of this workspace (see /campaigns/list)`,
    );
  return campaign;
}

export const campaignDetailsRoute: Route = readRoute(ENDPOINTS.campaignsDetails, (req, ctx) => {
  const nowMs = ctx.clock.nowMs();
  return { status: 200, body: campaignDetailsAt(campaignParam(ctx.workspace.analytics, req.query, nowMs), nowMs) };
});

export const campaignDataSeriesRoute: Route = readRoute(ENDPOINTS.campaignsDataSeries, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const nowMs = ctx.clock.nowMs();
  const campaign = campaignParam(ws, req.query, nowMs);
  const length = lengthParam(req.query, MAX_CAMPAIGN_SERIES_LENGTH);
  const endingMs = instantParam(req.query, 'ending_at') ?? nowMs;
  const body: CampaignSeriesBody = {
    data: campaignSeries(ws, campaign, unitStartsEndingAt(endingMs, length, 'day'), nowMs),
    message: 'success',
  };
  return { status: 200, body };
});
