import type { AccountRow } from '../db/rows.ts';
import type { OutboxEntry, WebhookSubscriptionRow } from '../db/store.ts';
import type { WebhookEventType } from '../domain/delivery-views.ts';
import type { WebhookType } from '../domain/webhook-types.ts';
import type { ServiceDeps } from './deps.ts';
import { newWebhookId } from './ids.ts';

export type FanOut = {
  /** The account webhook list the event goes to. */
  type: WebhookType;
  /** How the outbox and the delivery log name it. */
  eventType: WebhookEventType;
  /**
   * What orders this event's deliveries to one URL: a message handle for message events, or a key of
   * the subject (a typing conversation, a contact) for the others.
   */
  orderKey: string;
  /** The JSON body, fixed now so every attempt sends the same bytes. */
  payload: string;
  /** `receive` only: the line the message arrived on, for entries limited to some lines. */
  line?: string;
};

/**
 * Queues one delivery per entry of the account's list of that type, signed by the entry's own
 * secret, else the account's globalSecret, else the account's signing secret. Call inside the
 * transaction that records the event; the dispatcher is woken once it commits.
 */
export async function fanOutToAccountWebhooks(deps: ServiceDeps, account: AccountRow, event: FanOut, now: number): Promise<void> {
  await fanOutTo(deps, account, await deps.store.webhookSubscriptions.ofType(account.id, event.type), event, now);
}

/** fanOutToAccountWebhooks to the entries of the list already read (`event.type`'s), for callers that read it once for several events. */
export async function fanOutTo(
  deps: ServiceDeps,
  account: AccountRow,
  entries: readonly WebhookSubscriptionRow[],
  event: FanOut,
  now: number,
): Promise<void> {
  await queueDeliveries(deps, fanOutDeliveries(account, entries, event), now);
}

/** Queues these deliveries in their order; the dispatcher is woken once the transaction commits. */
export async function queueDeliveries(deps: ServiceDeps, deliveries: readonly OutboxEntry[], now: number): Promise<void> {
  for (const delivery of deliveries) await deps.store.outbox.enqueue(delivery, now);
  if (deliveries.length > 0) deps.notify.outboxWritten();
}

/** The deliveries fanOutTo queues, for a whole write that queues them with the rest. */
export function fanOutDeliveries(account: AccountRow, entries: readonly WebhookSubscriptionRow[], event: FanOut): OutboxEntry[] {
  return entries
    .filter((entry) => event.line === undefined || entry.sendblueNumbers === null || entry.sendblueNumbers.includes(event.line))
    .map((entry) => ({
      webhookId: newWebhookId(),
      accountId: account.id,
      messageHandle: event.orderKey,
      eventType: event.eventType,
      url: entry.url,
      payload: event.payload,
      signingSecret: entry.secret ?? account.webhookGlobalSecret,
    }));
}
