// What a message reports, per channel: the emulator's model of sends, opens and clicks written in the fields each
// channel has (campaign variations and Canvas step messages alike), so both answer the documented field sets.

/** What a message's sends of a day led to, before it is written in its channel's fields. */
export interface MessageOutcome {
  sent: number;
  bounces: number;
  delivered: number;
  uniqueOpens: number;
  opens: number;
  uniqueClicks: number;
  clicks: number;
  unsubscribes: number;
}

/**
 * The fields of a message's channel (the platform's documentation of /campaigns/data_series): email has opens and
 * spam reports, push direct and total opens and body clicks (and per-button clicks when the message has buttons), SMS
 * deliveries, failures, opt-outs and HELP replies but no opens, a webhook sends and errors, content cards impressions,
 * clicks and dismissals, an in-app message impressions and button clicks.
 */
export function channelStats(
  channel: string,
  m: MessageOutcome,
  u: (part: string) => number,
  hasButtons: boolean,
): Record<string, number> {
  switch (channel) {
    case 'email':
      return {
        sent: m.sent,
        opens: m.opens,
        unique_opens: m.uniqueOpens,
        clicks: m.clicks,
        unique_clicks: m.uniqueClicks,
        unsubscribes: m.unsubscribes,
        bounces: m.bounces,
        delivered: m.delivered,
        reported_spam: Math.floor(m.delivered * 0.002 * u('spam')),
      };
    case 'ios_push':
    case 'android_push': {
      // A direct open is a tap on the notification itself; total opens add the opens it influenced.
      const stats: Record<string, number> = {
        sent: m.sent,
        direct_opens: Math.floor(m.uniqueOpens * 0.6),
        total_opens: m.opens,
        bounces: m.bounces,
        body_clicks: m.clicks,
      };
      if (hasButtons) {
        const play = Math.floor(m.clicks * 0.3 * u('button1'));
        stats.notif_button_1_Play_click = play;
        stats.notif_button_2_Later_click = Math.floor((m.clicks - play) * 0.2 * u('button2'));
      }
      return stats;
    }
    case 'sms': {
      const undelivered = Math.floor(m.bounces * 0.6);
      return {
        sent: m.sent,
        delivered: m.delivered,
        undelivered,
        delivery_failed: m.bounces - undelivered,
        opt_out: m.unsubscribes,
        help: Math.floor(m.delivered * 0.001 * u('help')),
      };
    }
    case 'webhook':
      return { sent: m.sent, errors: m.bounces };
    case 'content_cards': {
      const uniqueDismissals = Math.floor(m.uniqueOpens * 0.1 * u('dismissals'));
      return {
        total_impressions: m.opens,
        unique_impressions: m.uniqueOpens,
        total_clicks: m.clicks,
        unique_clicks: m.uniqueClicks,
        total_dismissals: uniqueDismissals + Math.floor(uniqueDismissals * 0.2 * u('redismissals')),
        unique_dismissals: uniqueDismissals,
      };
    }
    default: {
      const first = Math.floor(m.clicks * (0.5 + 0.3 * u('first-button')));
      return {
        impressions: m.opens,
        clicks: m.clicks,
        first_button_clicks: first,
        second_button_clicks: Math.floor((m.clicks - first) * 0.7 * u('second-button')),
      };
    }
  }
}
