import { and, eq, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { IdempotencyRow } from '../../rows.ts';
import type { PgDb } from '../db.ts';
import { expiredRowsPruner } from '../expired-rows.ts';
import { idempotencyKeys } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/idempotency.ts: the answers of sends made with a key. */
export function idempotencyQueries(db: PgDb) {
  // The table has no column in insertion order to walk (SQLite walks its rowid).
  const pruneCreatedBy = expiredRowsPruner(db, idempotencyKeys, idempotencyKeys.createdAt);

  return {
    /**
     * The key's entry, read under a lock on the key held until the transaction ends: two requests
     * with the same key on different connections would otherwise both find none, and both send.
     */
    async findForUpdate(accountId: string, key: string): Promise<IdempotencyRow | undefined> {
      await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:${key}`}, 0))`);
      const [row] = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
      return row;
    },
    /** Replaces an expired entry for the same key. */
    async save(row: IdempotencyRow): Promise<void> {
      await db
        .insert(idempotencyKeys)
        .values(row)
        .onConflictDoUpdate({
          target: [idempotencyKeys.accountId, idempotencyKeys.key],
          set: {
            requestHash: sql`excluded.request_hash`,
            responseStatus: sql`excluded.response_status`,
            responseBody: sql`excluded.response_body`,
            createdAt: sql`excluded.created_at`,
          },
        });
    },
    /** One batch of removing the keys created at or before `until`. */
    pruneCreatedBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneCreatedBy(until, afterRowid, limit);
    },
  };
}
