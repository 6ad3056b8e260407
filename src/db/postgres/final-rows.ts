import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Rows whose writing transaction (a `writtenBy` column) is older than the oldest transaction still
 * running in the statement's snapshot: that transaction committed or rolled back, so no row of it
 * can still appear. A serial is taken at insert, not at commit: a reader that stood after serial
 * N could miss a row of N - 1 committed later; a reader that walks final rows in (writing
 * transaction, serial) order never does, since every row still to come has a newer writer. The
 * price: a transaction that stays open holds back what readers may see, until it ends.
 */
export function writtenByFinishedTransaction(writtenBy: PgColumn | SQL): SQL {
  return sql`${writtenBy} < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint`;
}
