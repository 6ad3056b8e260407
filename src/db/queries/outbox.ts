import type { Db } from '../connection.ts';
import { placeholdersFor } from '../placeholders.ts';
import { webhookDeliveries } from '../schema.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A callback to send: the rest of the row (state, attempts, timestamps) starts the same for all. */
export type OutboxEntry = Pick<WebhookDeliveryRow, 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload'>;

const ENQUEUE_COLUMNS = [
  'webhookId', 'accountId', 'messageHandle', 'eventType', 'url', 'payload', 'state', 'nextAttemptAt', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof WebhookDeliveryRow)[];

export function outboxQueries(db: Db) {
  // Runs once per status change with a callback URL: prepared once.
  const enqueue = db.insert(webhookDeliveries).values(placeholdersFor(ENQUEUE_COLUMNS)).prepare();

  return {
    /** Call inside the transaction that records the event, so the change and its callback commit together. */
    enqueue(entry: OutboxEntry, now: number): void {
      enqueue.run({ ...entry, state: 'pending', nextAttemptAt: now, createdAt: now, updatedAt: now });
    },
  };
}
