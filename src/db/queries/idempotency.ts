import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { idempotencyKeys } from '../schema.ts';
import type { IdempotencyRow } from '../rows.ts';

export function idempotencyQueries(db: Db) {
  const byKey = db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, sql.placeholder('accountId')), eq(idempotencyKeys.key, sql.placeholder('key'))))
    .prepare();

  return {
    find(accountId: string, key: string): IdempotencyRow | undefined {
      return byKey.get({ accountId, key });
    },
    /** Replaces an expired entry for the same key. */
    save(row: IdempotencyRow): void {
      db.insert(idempotencyKeys)
        .values(row)
        .onConflictDoUpdate({
          target: [idempotencyKeys.accountId, idempotencyKeys.key],
          set: {
            requestHash: row.requestHash,
            responseStatus: row.responseStatus,
            responseBody: row.responseBody,
            createdAt: row.createdAt,
          },
        })
        .run();
    },
  };
}
