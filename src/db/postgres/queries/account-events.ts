import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { AccountEventRow, NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import type { PgDb } from '../db.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';
import { accountEventCounters, accountEvents } from '../schema.ts';
import { sqlPreparedOnce } from './prepared-once.ts';

const p = sql.placeholder;

/** One round trip: the account's next number and the event that takes it. */
const appended = sqlPreparedOnce(
  'account_event_appended',
  () => sql`
    with next as (
      insert into ${accountEventCounters} (account_id, last_seq) values (${p('accountId')}, 1)
      on conflict (account_id) do update set last_seq = ${accountEventCounters.lastSeq} + 1 returning last_seq)
    insert into ${accountEvents} (account_id, seq, type, data, occurred_at)
      select ${p('accountId')}, last_seq, ${p('type')}, ${p('data')}, ${p('occurredAt')} from next`,
);

/**
 * The PostgreSQL twin of ../../sqlite/queries/account-events.ts: the account's event log. A stream
 * resumes from the number it sent last (Last-Event-ID), on any instance, so no event may appear
 * behind a number already sent. Taking a number locks the account's counter row until the commit:
 * the account's next event waits for it, so its events commit in their numbers' order and a read
 * by number never passes one still to come.
 */
export function accountEventQueries(db: PgDb) {
  const pruneOccurredBy = oldestRowsPruner(db, accountEvents, accountEvents.id, accountEvents.occurredAt);

  return {
    async append(event: NewAccountEvent): Promise<void> {
      await appended(db).execute(event);
    },
    /** The account's events numbered above `afterSeq`, oldest first (account_events_account_seq_uq). */
    after(accountId: string, afterSeq: number, limit: number): Promise<AccountEventRow[]> {
      return db
        .select()
        .from(accountEvents)
        .where(and(eq(accountEvents.accountId, accountId), gt(accountEvents.seq, afterSeq)))
        .orderBy(asc(accountEvents.seq))
        .limit(limit);
    },
    /** The number of the account's newest event, 0 when it has none: where a stream without Last-Event-ID starts. */
    async latestId(accountId: string): Promise<number> {
      const [row] = await db
        .select({ seq: sql<number | null>`max(${accountEvents.seq})` })
        .from(accountEvents)
        .where(eq(accountEvents.accountId, accountId));
      return Number(row?.seq ?? 0);
    },
    /** One batch of removing the events that occurred at or before `until`, oldest first (ids grow with time). */
    pruneOccurredBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      return pruneOccurredBy(until, afterRowid, limit);
    },
  };
}
