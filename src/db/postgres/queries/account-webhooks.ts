import { and, eq, isNull } from 'drizzle-orm';
import type { WebhookSecrets } from '../../sqlite/queries/account-webhooks.ts';
import type { PgDb } from '../db.ts';
import { accounts } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/account-webhooks.ts: the account's webhook signing secrets. */
export function accountWebhookQueries(db: PgDb) {
  return {
    async secretsOf(accountId: string): Promise<WebhookSecrets | undefined> {
      const [secrets] = await db
        .select({
          webhookSecret: accounts.webhookSecret,
          previousWebhookSecret: accounts.previousWebhookSecret,
          previousWebhookSecretExpiresAt: accounts.previousWebhookSecretExpiresAt,
        })
        .from(accounts)
        .where(eq(accounts.id, accountId));
      return secrets;
    },
    /** Sets the first secret; false when one exists already (another process got there first). */
    async setFirstSecret(accountId: string, secret: string): Promise<boolean> {
      const result = await db
        .update(accounts)
        .set({ webhookSecret: secret })
        .where(and(eq(accounts.id, accountId), isNull(accounts.webhookSecret)));
      return result.count === 1;
    },
    async setGlobalSecret(accountId: string, globalSecret: string): Promise<void> {
      await db.update(accounts).set({ webhookGlobalSecret: globalSecret }).where(eq(accounts.id, accountId));
    },
    async setSecrets(accountId: string, secrets: WebhookSecrets): Promise<void> {
      await db.update(accounts).set(secrets).where(eq(accounts.id, accountId));
    },
  };
}
