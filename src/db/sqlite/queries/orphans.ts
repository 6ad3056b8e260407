import { asc, eq, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import { orphanStatusEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { eachCall } from './each-call.ts';

export type OrphanStatusEventRow = typeof orphanStatusEvents.$inferSelect;

/** Status events kept until their message's handle is known. */
export function orphanQueries(db: Db) {
  // Every hand-over looks for events that arrived before it: prepared once.
  const waiting = db
    .select()
    .from(orphanStatusEvents)
    .where(eq(orphanStatusEvents.transportHandle, sql.placeholder('transportHandle')))
    .orderBy(asc(orphanStatusEvents.id))
    .prepare();
  const removeWaiting = db
    .delete(orphanStatusEvents)
    .where(eq(orphanStatusEvents.transportHandle, sql.placeholder('transportHandle')))
    .prepare();

  const pruneReceivedBy = oldestRowsPruner(db, 'orphan_status_events', 'received_at');

  /** Removes and returns the events waiting for this handle, in arrival order. Call inside a transaction. */
  function take(transportHandle: string): OrphanStatusEventRow[] {
    const rows = waiting.all({ transportHandle });
    if (rows.length > 0) removeWaiting.run({ transportHandle });
    return rows;
  }

  return {
    /** False when the reporter already delivered this very event. */
    insert(row: Omit<OrphanStatusEventRow, 'id'>): boolean {
      return db.insert(orphanStatusEvents).values(row).onConflictDoNothing().run().changes === 1;
    },
    take,
    /** take of each call, in order. */
    takeMany: eachCall(take),
    /** One batch of dropping the events received at or before `until` whose handle never became known, oldest first. */
    pruneReceivedBy(until: number, afterRowid: number, limit: number): PruneBatch {
      return pruneReceivedBy(until, afterRowid, limit);
    },
  };
}
