import { and, asc, eq, sql } from 'drizzle-orm';
import type { WebhookType } from '../../../domain/webhook-types.ts';
import type { WebhookSubscriptionRow } from '../../sqlite/queries/webhook-subscriptions.ts';
import type { PgDb } from '../db.ts';
import { webhookSubscriptions } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/webhook-subscriptions.ts: the account's webhook lists, in the order entries were added. */
export function webhookSubscriptionQueries(db: PgDb) {
  const listed = (where: ReturnType<typeof and>): Promise<WebhookSubscriptionRow[]> =>
    db
      .select()
      .from(webhookSubscriptions)
      .where(where)
      .orderBy(asc(webhookSubscriptions.createdAt), sql`${webhookSubscriptions.url} collate "C"`);

  return {
    ofType(accountId: string, type: WebhookType): Promise<WebhookSubscriptionRow[]> {
      return listed(and(eq(webhookSubscriptions.accountId, accountId), eq(webhookSubscriptions.type, type)));
    },
    all(accountId: string): Promise<WebhookSubscriptionRow[]> {
      return listed(eq(webhookSubscriptions.accountId, accountId));
    },
    /** False when the URL is already in that type's list (the entry there is kept as it is). */
    async add(row: WebhookSubscriptionRow): Promise<boolean> {
      const result = await db.insert(webhookSubscriptions).values(row).onConflictDoNothing();
      return result.count === 1;
    },
    /** False when the URL was not in that type's list. */
    async remove(accountId: string, type: WebhookType, url: string): Promise<boolean> {
      const result = await db
        .delete(webhookSubscriptions)
        .where(and(eq(webhookSubscriptions.accountId, accountId), eq(webhookSubscriptions.type, type), eq(webhookSubscriptions.url, url)));
      return result.count === 1;
    },
    async removeType(accountId: string, type: WebhookType): Promise<void> {
      await db.delete(webhookSubscriptions).where(and(eq(webhookSubscriptions.accountId, accountId), eq(webhookSubscriptions.type, type)));
    },
  };
}
