/** The webhook types of /api/account/webhooks, as the public service's SDK lists them. */
export const WEBHOOK_TYPES = [
  'receive',
  'outbound',
  'typing_indicator',
  'contact_created',
  'line_blocked',
  'line_assigned',
  'call_log',
  'inbound_call',
  'contact_profile',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** The types textrelay sends; the others are stored and listed for the provider's own use. */
export const EMITTED_WEBHOOK_TYPES = [
  'receive',
  'outbound',
  'typing_indicator',
  'contact_created',
] as const satisfies readonly WebhookType[];
