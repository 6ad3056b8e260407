import { and, asc, eq, gt, max } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { AccountEventRow, NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import type { PgDb } from '../db.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { accountEvents } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/account-events.ts: the account's event log, read forward by id. */
export function accountEventQueries(db: PgDb) {
  const pruneOccurredBy = oldestRowsPruner(db, accountEvents, accountEvents.id, accountEvents.occurredAt);

  return {
    async append(event: NewAccountEvent): Promise<void> {
      await db.insert(accountEvents).values(event);
    },
    /** The account's events with an id above `afterId`, oldest first (account_events_account_idx). */
    after(accountId: string, afterId: number, limit: number): Promise<AccountEventRow[]> {
      return db
        .select()
        .from(accountEvents)
        .where(and(eq(accountEvents.accountId, accountId), gt(accountEvents.id, afterId)))
        .orderBy(asc(accountEvents.id))
        .limit(limit);
    },
    /** The newest event id of the account, 0 when it has none: where a stream without Last-Event-ID starts. */
    async latestId(accountId: string): Promise<number> {
      const [row] = await db
        .select({ id: max(accountEvents.id) })
        .from(accountEvents)
        .where(eq(accountEvents.accountId, accountId));
      return row?.id ?? 0;
    },
    /** One batch of removing the events that occurred at or before `until`, oldest first (ids grow with time). */
    pruneOccurredBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneOccurredBy(until, afterRowid, limit);
    },
  };
}
