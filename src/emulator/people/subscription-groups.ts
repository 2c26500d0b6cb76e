// Email and SMS subscription groups of the emulated workspace (spec 2.1). Ids are the same for every seed so tests,
// docs and demo pipelines can name them (`sg_email_1`, `sg_sms_1`).

export type SubscriptionChannel = 'email' | 'sms';

export interface SubscriptionGroup {
  readonly id: string;
  readonly name: string;
  /** Email groups are addressed by external_id or email; SMS groups by external_id or phone. */
  readonly channel: SubscriptionChannel;
}

export function generateSubscriptionGroups(): SubscriptionGroup[] {
  return [
    { id: 'sg_email_1', name: 'Newsletter', channel: 'email' },
    { id: 'sg_email_2', name: 'Product updates', channel: 'email' },
    { id: 'sg_email_3', name: 'Offers', channel: 'email' },
    { id: 'sg_sms_1', name: 'SMS alerts', channel: 'sms' },
    { id: 'sg_sms_2', name: 'SMS promotions', channel: 'sms' },
  ];
}
