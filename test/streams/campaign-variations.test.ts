// A campaign day whose answer lists one variation twice: the same entry twice is stored once with a warning (stored
// twice, every sum over the variations counted its sends twice); two entries that share an id but not their numbers
// are both kept under their positions and named.
import { describe, expect, it } from 'vitest';
import type { CampaignDay, CampaignVariationEntry } from '../../src/api/campaign-series.js';
import { campaignSeriesStream } from '../../src/streams/campaign-series.js';

const entry = (id: string, sent: number): CampaignVariationEntry => ({
  variationApiId: id,
  variationName: `Variant ${id}`,
  numbers: { sent, opens: 3 },
  extra: {},
  unknown: [],
});

function rowsOf(list: CampaignVariationEntry[]) {
  const [series] = campaignSeriesStream.series({ campaigns: { all: false, ids: ['cmp_1'] } });
  const day = {
    unique_recipients: 10,
    conversions: 1,
    revenue: null,
    messages: { email: list },
  } as unknown as CampaignDay;
  const out = series!.rows(new Date('2025-03-02T00:00:00Z'), day);
  const messages = out.upserts.find((u) => u.table === 'campaign_message_series')!.rows;
  return { keys: messages.map((r) => r['variation_key']), notices: out.notices ?? [] };
}

describe('campaign_series with a variation listed twice', () => {
  it('stores the same entry twice over as one row and says so', () => {
    const { keys, notices } = rowsOf([entry('var_a', 5), entry('var_b', 7), entry('var_a', 5)]);
    expect(keys).toEqual(['var_a', 'var_b']);
    expect(notices.map((n) => n.code)).toEqual(['repeated_variation']);
    expect(notices[0]!.message).toMatch(
      /variation "var_a" is listed twice with the same numbers on 2025-03-02; stored once/,
    );
  });

  it('keeps two entries that share an id but not their numbers, under their positions, and names the conflict', () => {
    const { keys, notices } = rowsOf([entry('var_a', 5), entry('var_a', 6)]);
    expect(keys).toEqual(['position:0', 'position:1']);
    expect(notices.map((n) => n.code)).toEqual(['conflicting_variation']);
  });
});
