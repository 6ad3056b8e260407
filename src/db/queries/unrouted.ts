import { count, desc } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import type { NewUnroutedInboundRow, UnroutedInboundRow } from '../rows.ts';
import { unroutedInbound } from '../schema.ts';

/** Inbound messages for lines no account owns: the operator's to look at, no account's. */
export function unroutedQueries(db: Db) {
  return {
    /** False when the transport already delivered this very message. */
    insert(row: NewUnroutedInboundRow): boolean {
      return db.insert(unroutedInbound).values(row).onConflictDoNothing().run().changes === 1;
    },
    count(): number {
      return db.select({ total: count() }).from(unroutedInbound).get()?.total ?? 0;
    },
    /** The most recent ones, newest first. */
    latest(limit: number): UnroutedInboundRow[] {
      return db.select().from(unroutedInbound).orderBy(desc(unroutedInbound.id)).limit(limit).all();
    },
  };
}
