import { eq, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { OrphanStatusEventRow } from '../../sqlite/queries/orphans.ts';
import type { PgDb } from '../db.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { orphanStatusEvents } from '../schema.ts';
import { preparedOnce } from './prepared-once.ts';

const taken = preparedOnce('orphans_taken', (db) =>
  db
    .delete(orphanStatusEvents)
    .where(eq(orphanStatusEvents.transportHandle, sql.placeholder('transportHandle')))
    .returning(),
);

const takenMany = preparedOnce('orphans_taken_many', (db) =>
  db
    .delete(orphanStatusEvents)
    .where(sql`${orphanStatusEvents.transportHandle} = any(${sql.placeholder('transportHandles')}::text[])`)
    .returning(),
);

const inArrivalOrder = (rows: OrphanStatusEventRow[]) => rows.sort((a, b) => a.id - b.id);

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
      return inArrivalOrder(await taken(db).execute({ transportHandle }));
    },
    /** take of each call, in one statement: a handle's events go to its first call, as one after the other. */
    async takeMany(calls: readonly [transportHandle: string][]): Promise<OrphanStatusEventRow[][]> {
      if (calls.length === 0) return [];
      const rows = await takenMany(db).execute({ transportHandles: calls.map(([transportHandle]) => transportHandle) });
      const byHandle = new Map<string, OrphanStatusEventRow[]>();
      for (const row of inArrivalOrder(rows)) byHandle.set(row.transportHandle, [...(byHandle.get(row.transportHandle) ?? []), row]);
      return calls.map(([transportHandle]) => {
        const events = byHandle.get(transportHandle) ?? [];
        byHandle.delete(transportHandle);
        return events;
      });
    },
    /** One batch of dropping the events received at or before `until` whose handle never became known, oldest first. */
    async pruneReceivedBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneReceivedBy(until, afterRowid, limit);
    },
  };
}
