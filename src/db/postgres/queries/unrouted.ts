import { count, desc } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { NewUnroutedInboundRow, UnroutedInboundRow } from '../../rows.ts';
import type { PgDb } from '../db.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { unroutedInbound } from '../schema.ts';

/** Inbound messages for lines no account owns: the operator's to look at, no account's. */
export function unroutedQueries(db: PgDb) {
  const pruneReceivedBy = oldestRowsPruner(db, unroutedInbound, unroutedInbound.id, unroutedInbound.receivedAt);
  return {
    /** False when the transport already delivered this very message. */
    async insert(row: NewUnroutedInboundRow): Promise<boolean> {
      const inserted = await db.insert(unroutedInbound).values(row).onConflictDoNothing().returning({ id: unroutedInbound.id });
      return inserted.length === 1;
    },
    async count(): Promise<number> {
      const [row] = await db.select({ total: count() }).from(unroutedInbound);
      return row?.total ?? 0;
    },
    /** One batch of removing those received at or before `until`, oldest first. */
    async pruneReceivedBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneReceivedBy(until, afterRowid, limit);
    },
    /** The most recent ones, newest first. */
    async latest(limit: number): Promise<UnroutedInboundRow[]> {
      return db.select().from(unroutedInbound).orderBy(desc(unroutedInbound.id)).limit(limit);
    },
  };
}
