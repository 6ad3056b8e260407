import { and, eq, isNull } from 'drizzle-orm';
import { accounts } from '../../schema.ts';
import type { Db } from '../connection.ts';

export type WebhookSecrets = {
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

/** The account's webhook signing secrets and receive URLs. */
export function accountWebhookQueries(db: Db) {
  return {
    secretsOf(accountId: string): WebhookSecrets | undefined {
      return db
        .select({
          webhookSecret: accounts.webhookSecret,
          previousWebhookSecret: accounts.previousWebhookSecret,
          previousWebhookSecretExpiresAt: accounts.previousWebhookSecretExpiresAt,
        })
        .from(accounts)
        .where(eq(accounts.id, accountId))
        .get();
    },
    /** Sets the first secret; false when one exists already (another process got there first). */
    setFirstSecret(accountId: string, secret: string): boolean {
      return (
        db
          .update(accounts)
          .set({ webhookSecret: secret })
          .where(and(eq(accounts.id, accountId), isNull(accounts.webhookSecret)))
          .run().changes === 1
      );
    },
    setGlobalSecret(accountId: string, globalSecret: string): void {
      db.update(accounts).set({ webhookGlobalSecret: globalSecret }).where(eq(accounts.id, accountId)).run();
    },
    setSecrets(accountId: string, secrets: WebhookSecrets): void {
      db.update(accounts).set(secrets).where(eq(accounts.id, accountId)).run();
    },
  };
}
