import { lte, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PruneBatch } from '../prune-batch.ts';
import type { PgDb } from './db.ts';

/**
 * For a table with no column in insertion order (SQLite walks its rowid): removes, one statement
 * per call, at most `limit` rows whose `timeColumn` is at or before `until`. Removed rows are gone,
 * so every batch starts over from what is left: `afterId` is not read, and `resumeAfter` only says
 * whether another batch may find more (PruneBatch's contract).
 */
export function expiredRowsPruner(db: PgDb, table: PgTable, timeColumn: PgColumn) {
  return async (until: number, afterId: number, limit: number): Promise<PruneBatch> => {
    const expired = db.select({ row: sql`ctid` }).from(table).where(lte(timeColumn, until)).limit(limit);
    const result = await db.delete(table).where(sql`ctid in (${expired})`);
    return { pruned: result.count, resumeAfter: result.count < limit ? null : afterId };
  };
}
