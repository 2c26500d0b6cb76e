// The per-channel field rule on its own: which fields of an entry are read as numbers, which are kept aside
// and which are named as unknown, and that a column exists for every count documented for any channel.
import { describe, expect, it } from 'vitest';
import { CHANNEL_COUNT_FIELDS, CHANNEL_COUNTS, channelFieldKind, splitStats } from '../../src/api/channel-stats.js';

const fail = (what: string): never => {
  throw new Error(what);
};
const COMMON = { revenue: 'amount', conversions: 'count' } as const;

describe('channel statistics', () => {
  it('has one column for each count documented for any channel, and no other', () => {
    expect([...CHANNEL_COUNT_FIELDS].sort()).toEqual([...new Set(Object.values(CHANNEL_COUNTS).flat())].sort());
    expect(new Set(CHANNEL_COUNT_FIELDS).size).toBe(CHANNEL_COUNT_FIELDS.length);
  });

  it("reads a push entry: its own fields and the common ones as numbers, button clicks aside, another channel's field unknown", () => {
    const split = splitStats(
      {
        sent: '12',
        direct_opens: 3,
        total_opens: 5,
        revenue: '1.5',
        notif_button_2_Buy_now_click: 1,
        carousel_slide_1_A_click: '2',
        opens: 4,
        bounces: null,
      },
      'm',
      fail,
      channelFieldKind('web_push', COMMON),
    );
    expect(split).toEqual({
      numbers: { sent: 12, direct_opens: 3, total_opens: 5, revenue: 1.5 },
      extra: { notif_button_2_Buy_now_click: 1, carousel_slide_1_A_click: 2, opens: 4 },
      unknown: ['opens'],
    });
  });

  it('knows no button fields outside push; on a channel it does not know, reads the counts another channel documents', () => {
    expect(
      splitStats({ notif_button_1_A_click: 1, sent: 2 }, 'm', fail, channelFieldKind('email', COMMON)).unknown,
    ).toEqual(['notif_button_1_A_click']);
    expect(
      splitStats(
        { sent: 2, delivered: '2', conversions: 1, read: 1, clicks: 'n/a', opens: null },
        'm',
        fail,
        channelFieldKind('whats_app', COMMON),
      ),
    ).toEqual({
      numbers: { sent: 2, delivered: 2, conversions: 1 },
      extra: { read: 1, clicks: 'n/a' },
      unknown: ['read', 'clicks'],
    });
    // On a documented channel, another channel's field is still unknown, not borrowed.
    expect(splitStats({ delivered: 3 }, 'm', fail, channelFieldKind('webhook', COMMON)).unknown).toEqual(['delivered']);
  });

  it('fails on a documented field that is not a number of its kind, naming where', () => {
    const kind = channelFieldKind('sms', COMMON);
    expect(() => splitStats({ sent: 'ten' }, 'data[0].messages.sms[1]', fail, kind)).toThrow(
      'data[0].messages.sms[1].sent: "ten" is not a number',
    );
    expect(() => splitStats({ opt_out: 1.5 }, 'x', fail, kind)).toThrow('x.opt_out: 1.5 is not a whole number');
    expect(() => splitStats({ notif_button_1_A_click: 'x' }, 'x', fail, channelFieldKind('ios_push', COMMON))).toThrow(
      'x.notif_button_1_A_click',
    );
    expect(splitStats({ revenue: 2.25 }, 'x', fail, kind).numbers).toEqual({ revenue: 2.25 });
  });
});
