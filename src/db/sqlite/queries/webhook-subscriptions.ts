import { and, asc, eq } from 'drizzle-orm';
import type { WebhookType } from '../../../domain/webhook-types.ts';
import { webhookSubscriptions } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { rowReader } from '../row-reader.ts';

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;

/** The account's webhook lists (/api/account/webhooks and the v1 receive list), in the order entries were added. */
export function webhookSubscriptionQueries(db: Db) {
  // Every inbound message and every status change reads a list: prepared once.
  const subscription = rowReader(webhookSubscriptions);
  const ofType = db.$client
    .prepare(`select ${subscription.selectList()} from webhook_subscriptions where account_id = ? and type = ? order by created_at, url`)
    .raw(true);

  return {
    ofType(accountId: string, type: WebhookType): WebhookSubscriptionRow[] {
      return (ofType.all(accountId, type) as unknown[][]).map(subscription.read);
    },
    all(accountId: string): WebhookSubscriptionRow[] {
      return db
        .select()
        .from(webhookSubscriptions)
        .where(eq(webhookSubscriptions.accountId, accountId))
        .orderBy(asc(webhookSubscriptions.createdAt), asc(webhookSubscriptions.url))
        .all();
    },
    /** False when the URL is already in that type's list (the entry there is kept as it is). */
    add(row: WebhookSubscriptionRow): boolean {
      return db.insert(webhookSubscriptions).values(row).onConflictDoNothing().run().changes === 1;
    },
    /** False when the URL was not in that type's list. */
    remove(accountId: string, type: WebhookType, url: string): boolean {
      return (
        db
          .delete(webhookSubscriptions)
          .where(and(eq(webhookSubscriptions.accountId, accountId), eq(webhookSubscriptions.type, type), eq(webhookSubscriptions.url, url)))
          .run().changes === 1
      );
    },
    removeType(accountId: string, type: WebhookType): void {
      db.delete(webhookSubscriptions)
        .where(and(eq(webhookSubscriptions.accountId, accountId), eq(webhookSubscriptions.type, type)))
        .run();
    },
  };
}
