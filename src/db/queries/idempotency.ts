import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { placeholdersFor } from '../placeholders.ts';
import { idempotencyKeys } from '../schema.ts';
import type { IdempotencyRow } from '../rows.ts';

export function idempotencyQueries(db: Db) {
  const byKey = db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, sql.placeholder('accountId')), eq(idempotencyKeys.key, sql.placeholder('key'))))
    .prepare();
  // Runs on every send that carries a key. On conflict, the new row's values replace the expired one's.
  const save = db
    .insert(idempotencyKeys)
    .values(placeholdersFor(['accountId', 'key', 'requestHash', 'responseStatus', 'responseBody', 'createdAt'] as const))
    .onConflictDoUpdate({
      target: [idempotencyKeys.accountId, idempotencyKeys.key],
      set: {
        requestHash: sql`${sql.placeholder('requestHash')}`,
        responseStatus: sql`${sql.placeholder('responseStatus')}`,
        responseBody: sql`${sql.placeholder('responseBody')}`,
        createdAt: sql`${sql.placeholder('createdAt')}`,
      },
    })
    .prepare();

  return {
    find(accountId: string, key: string): IdempotencyRow | undefined {
      return byKey.get({ accountId, key });
    },
    /** Replaces an expired entry for the same key. */
    save(row: IdempotencyRow): void {
      save.run(row);
    },
  };
}
