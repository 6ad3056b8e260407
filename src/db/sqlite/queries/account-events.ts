import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import { accountEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { unplannedParam } from '../placeholders.ts';

export type AccountEventRow = typeof accountEvents.$inferSelect;
export type NewAccountEvent = Omit<AccountEventRow, 'id'>;

/** The account's event log: appended in the transaction of each fact, read forward by id. */
export function accountEventQueries(db: Db) {
  // Every send and status change appends one: positional, without drizzle's mapping of each call.
  const insert = db.$client.prepare('insert into account_events (account_id, type, data, occurred_at) values (?, ?, ?, ?)');
  const after = db
    .select()
    .from(accountEvents)
    .where(and(eq(accountEvents.accountId, sql.placeholder('accountId')), gt(accountEvents.id, sql.placeholder('afterId'))))
    .orderBy(asc(accountEvents.id))
    .limit(unplannedParam(sql.placeholder('limit')))
    .prepare();
  const pruneOccurredBy = oldestRowsPruner(db, 'account_events', 'occurred_at');

  return {
    append(event: NewAccountEvent): void {
      insert.run(event.accountId, event.type, event.data, event.occurredAt);
    },
    /** The account's events with an id above `afterId`, oldest first. */
    after(accountId: string, afterId: number, limit: number): AccountEventRow[] {
      return after.all({ accountId, afterId, limit });
    },
    /** The newest event id of the account, 0 when it has none: where a stream without Last-Event-ID starts. */
    latestId(accountId: string): number {
      return (
        db
          .select({ id: sql<number>`max(${accountEvents.id})` })
          .from(accountEvents)
          .where(eq(accountEvents.accountId, accountId))
          .get()?.id ?? 0
      );
    },
    /** One batch of removing the events that occurred at or before `until`, oldest first (ids grow with time). */
    pruneOccurredBy(until: number, afterRowid: number, limit: number): PruneBatch {
      return pruneOccurredBy(until, afterRowid, limit);
    },
  };
}
