import { sql } from 'drizzle-orm';
import type { PgDb } from './db.ts';

/**
 * Holds, until the transaction ends, the lock on an account's quota of `what`: two writers checking
 * the same quota on different connections would otherwise both find room and both add.
 */
export async function lockQuota(db: PgDb, what: 'contacts' | 'media', accountId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`quota:${what}:${accountId}`}, 0))`);
}
