import { and, asc, gt, lte } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PruneBatch } from '../prune-batch.ts';
import type { PgDb } from './db.ts';

/**
 * The PostgreSQL twin of ../sqlite/oldest-rows.ts, walking the table's serial column where SQLite
 * walks rowid: removes, one transaction per call, the rows whose `timeColumn` is at or before
 * `until`, reading at most `limit` rows after `afterId` and stopping at the first row past `until`.
 * Only for tables whose rows are inserted in the order of that column and never change it.
 */
export function oldestRowsPruner(db: PgDb, table: PgTable, idColumn: PgColumn, timeColumn: PgColumn) {
  return (until: number, afterId: number, limit: number): Promise<PruneBatch> =>
    db.transaction(async (tx) => {
      const rows = (await tx
        .select({ id: idColumn, time: timeColumn })
        .from(table)
        .where(gt(idColumn, afterId))
        .orderBy(asc(idColumn))
        .limit(limit)) as { id: number; time: number }[];
      const firstKept = rows.findIndex((row) => row.time > until);
      const removable = firstKept === -1 ? rows : rows.slice(0, firstKept);
      // The time is checked again: a row of the range committed since the read (its id was taken
      // earlier) is recent. Counted as deleted, not as read: another process pruning may have taken some.
      const removed =
        removable.length === 0
          ? []
          : await tx
              .delete(table)
              .where(and(gt(idColumn, afterId), lte(idColumn, removable.at(-1)!.id), lte(timeColumn, until)))
              .returning({ id: idColumn });
      const walkIsOver = firstKept !== -1 || rows.length < limit;
      return { pruned: removed.length, resumeAfter: walkIsOver ? null : rows.at(-1)!.id };
    });
}
