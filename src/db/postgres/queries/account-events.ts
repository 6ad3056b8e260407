import { and, asc, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { AccountEventRow, NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import type { PgDb } from '../db.ts';
import { writtenByFinishedTransaction } from '../final-rows.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { accountEvents } from '../schema.ts';

const { writtenBy: _writtenBy, ...rowColumns } = getTableColumns(accountEvents);

/**
 * Where the event of this id stands in the log: (its writing transaction, its id). An id no row
 * has any more (pruned) stands before the first later id's transaction; an id past every row
 * stands after every final event.
 */
function standingOf(accountId: string, id: number): SQL {
  const e = accountEvents;
  const ofAccount = sql`${e.accountId} = ${accountId}`;
  return sql`(coalesce(
    (select ${e.writtenBy} from ${e} where ${e.id} = ${id} and ${ofAccount}),
    (select min(${e.writtenBy}) from ${e} where ${e.id} > ${id} and ${ofAccount}),
    (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint - 1), ${id}::bigint)`;
}

/**
 * The PostgreSQL twin of ../../sqlite/queries/account-events.ts: the account's event log. A stream
 * resumes from the id it sent last (Last-Event-ID), on any instance, so the log's order must never
 * let an event appear behind an id already sent: ids are taken at insert, not at commit, so the
 * log is read in (writing transaction, id) order and only as far as its events are final
 * (../final-rows.ts). With one writer at a time that is id order, as on SQLite.
 */
export function accountEventQueries(db: PgDb) {
  const pruneOccurredBy = oldestRowsPruner(db, accountEvents, accountEvents.id, accountEvents.occurredAt);
  const finalOf = (accountId: string) => and(eq(accountEvents.accountId, accountId), writtenByFinishedTransaction(accountEvents.writtenBy));

  return {
    async append(event: NewAccountEvent): Promise<void> {
      await db.insert(accountEvents).values(event);
    },
    /** The account's final events after the one of id `afterId`, in log order (account_events_account_idx). */
    after(accountId: string, afterId: number, limit: number): Promise<AccountEventRow[]> {
      return db
        .select(rowColumns)
        .from(accountEvents)
        .where(and(finalOf(accountId), sql`(${accountEvents.writtenBy}, ${accountEvents.id}) > ${standingOf(accountId, afterId)}`))
        .orderBy(asc(accountEvents.writtenBy), asc(accountEvents.id))
        .limit(limit);
    },
    /** The id of the account's last final event, 0 when it has none: where a stream without Last-Event-ID starts. */
    async latestId(accountId: string): Promise<number> {
      const [row] = await db
        .select({ id: accountEvents.id })
        .from(accountEvents)
        .where(finalOf(accountId))
        .orderBy(desc(accountEvents.writtenBy), desc(accountEvents.id))
        .limit(1);
      return row?.id ?? 0;
    },
    /** One batch of removing the events that occurred at or before `until`, oldest first (ids grow with time). */
    pruneOccurredBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneOccurredBy(until, afterRowid, limit);
    },
  };
}
