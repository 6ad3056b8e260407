import { and, eq, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { IdempotencyRow } from '../../rows.ts';
import { idempotencyKeys } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';

export function idempotencyQueries(db: Db) {
  const byKey = db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, sql.placeholder('accountId')), eq(idempotencyKeys.key, sql.placeholder('key'))))
    .prepare();
  // Runs on every send that carries a key. REPLACE gives a reused key a new rowid, so rowid order stays the order of created_at, which pruning walks.
  const save = db.$client.prepare(`
    insert or replace into idempotency_keys (account_id, key, request_hash, response_status, response_body, created_at)
    values (@accountId, @key, @requestHash, @responseStatus, @responseBody, @createdAt)`);
  const pruneCreatedBy = oldestRowsPruner(db, 'idempotency_keys', 'created_at');

  return {
    /** The key's entry; a SQLite write transaction has the file to itself, so nothing else can be writing the key meanwhile. */
    findForUpdate(accountId: string, key: string): IdempotencyRow | undefined {
      return byKey.get({ accountId, key });
    },
    /** Replaces an expired entry for the same key. */
    save(row: IdempotencyRow): void {
      save.run(row);
    },
    /** One batch of removing the keys created at or before `until`, oldest first. */
    pruneCreatedBy(until: number, afterRowid: number, limit: number): PruneBatch {
      return pruneCreatedBy(until, afterRowid, limit);
    },
  };
}
