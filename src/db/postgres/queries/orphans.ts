import { eq } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { OrphanStatusEventRow } from '../../sqlite/queries/orphans.ts';
import type { PgDb } from '../db.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { orphanStatusEvents } from '../schema.ts';

/** Status events kept until their message's handle is known. */
export function orphanQueries(db: PgDb) {
  const pruneReceivedBy = oldestRowsPruner(db, orphanStatusEvents, orphanStatusEvents.id, orphanStatusEvents.receivedAt);

  return {
    /** False when the reporter already delivered this very event. */
    async insert(row: Omit<OrphanStatusEventRow, 'id'>): Promise<boolean> {
      const inserted = await db.insert(orphanStatusEvents).values(row).onConflictDoNothing().returning({ id: orphanStatusEvents.id });
      return inserted.length === 1;
    },
    /**
     * Removes and returns the events waiting for this handle, in arrival order. One DELETE ...
     * RETURNING: of two processes storing the same handle at once, each event goes to one.
     */
    async take(transportHandle: string): Promise<OrphanStatusEventRow[]> {
      const taken = await db.delete(orphanStatusEvents).where(eq(orphanStatusEvents.transportHandle, transportHandle)).returning();
      return taken.sort((a, b) => a.id - b.id);
    },
    /** One batch of dropping the events received at or before `until` whose handle never became known, oldest first. */
    async pruneReceivedBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneReceivedBy(until, afterRowid, limit);
    },
  };
}
