import { count, desc } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { NewUnroutedInboundRow, UnroutedInboundRow } from '../../rows.ts';
import { unroutedInbound } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';

/** Inbound messages for lines no account owns: the operator's to look at, no account's. */
export function unroutedQueries(db: Db) {
  const pruneReceivedBy = oldestRowsPruner(db, 'unrouted_inbound', 'received_at');
  return {
    /** False when the transport already delivered this very message. */
    insert(row: NewUnroutedInboundRow): boolean {
      return db.insert(unroutedInbound).values(row).onConflictDoNothing().run().changes === 1;
    },
    count(): number {
      return db.select({ total: count() }).from(unroutedInbound).get()?.total ?? 0;
    },
    /** One batch of removing those received at or before `until`, oldest first. */
    pruneReceivedBy(until: number, afterRowid: number, limit: number): PruneBatch {
      return pruneReceivedBy(until, afterRowid, limit);
    },
    /** The most recent ones, newest first. */
    latest(limit: number): UnroutedInboundRow[] {
      return db.select().from(unroutedInbound).orderBy(desc(unroutedInbound.id)).limit(limit).all();
    },
  };
}
