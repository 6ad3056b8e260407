/** The event types of `GET /api/v2/events`, as the public service's SDK lists them. */
export const ACCOUNT_EVENT_TYPES = [
  'message.received',
  'message.created',
  'message.updated',
  'typing.changed',
  'line.assigned',
  'line.unassigned',
  'line.status.changed',
  'line.blocked',
  'contact.created',
  'verification.approved',
  'verification.expired',
  'verification.canceled',
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** An event as the stream sends it (the SDK's `AccountEvent`). */
export type AccountEventView = {
  id: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
  version: 1;
};
