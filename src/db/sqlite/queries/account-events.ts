import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import { accountEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { unplannedParam } from '../placeholders.ts';

export type AccountEventRow = typeof accountEvents.$inferSelect;
export type NewAccountEvent = Omit<AccountEventRow, 'id' | 'seq'>;

/** The account's event log: appended in the transaction of each fact, numbered per account, read forward by number. */
export function accountEventQueries(db: Db) {
  // Every send and status change appends one: positional, without drizzle's mapping of each call.
  const nextSeq = db.$client
    .prepare(
      `insert into account_event_counters (account_id, last_seq) values (?, 1)
       on conflict (account_id) do update set last_seq = last_seq + 1 returning last_seq`,
    )
    .pluck();
  const insert = db.$client.prepare('insert into account_events (account_id, seq, type, data, occurred_at) values (?, ?, ?, ?, ?)');
  const after = db
    .select()
    .from(accountEvents)
    .where(and(eq(accountEvents.accountId, sql.placeholder('accountId')), gt(accountEvents.seq, sql.placeholder('afterSeq'))))
    .orderBy(asc(accountEvents.seq))
    .limit(unplannedParam(sql.placeholder('limit')))
    .prepare();
  const pruneOccurredBy = oldestRowsPruner(db, 'account_events', 'occurred_at');

  return {
    append(event: NewAccountEvent): void {
      insert.run(event.accountId, nextSeq.get(event.accountId), event.type, event.data, event.occurredAt);
    },
    /** The account's events numbered above `afterSeq`, oldest first. */
    after(accountId: string, afterSeq: number, limit: number): AccountEventRow[] {
      return after.all({ accountId, afterSeq, limit });
    },
    /** The number of the account's newest event, 0 when it has none: where a stream without Last-Event-ID starts. */
    latestId(accountId: string): number {
      return (
        db
          .select({ seq: sql<number>`max(${accountEvents.seq})` })
          .from(accountEvents)
          .where(eq(accountEvents.accountId, accountId))
          .get()?.seq ?? 0
      );
    },
    /** One batch of removing the events that occurred at or before `until`, oldest first (ids grow with time). */
    pruneOccurredBy(until: number, afterRowid: number, limit: number): PruneBatch {
      return pruneOccurredBy(until, afterRowid, limit);
    },
  };
}
