import { type SQL, sql } from 'drizzle-orm';
import type { WithSubquery } from 'drizzle-orm/subquery';
import type { MessageRow } from '../../rows.ts';
import type { NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import type { SendWrite, StatusStepWrite } from '../../sqlite/queries/whole-writes.ts';
import type { PgDb } from '../db.ts';
import { messages, statusEvents } from '../schema.ts';

/**
 * The PostgreSQL twin of ../../sqlite/queries/whole-writes.ts: each whole write is one statement,
 * its parts data-modifying CTEs, so a send or a status step costs one round trip instead of one
 * per row. Every value is cast, as the statement is prepared once per connection for every call.
 */
export function wholeWriteQueries(db: PgDb) {
  /**
   * The account event's CTEs: its number (locking the account's counter row until the commit, see
   * account-events.ts) and the event, written only when `onlyIf` (a CTE's name) returned a row.
   */
  function logged(event: NewAccountEvent, onlyIf?: string) {
    const when = onlyIf === undefined ? sql`` : sql` where exists (select 1 from ${sql.identifier(onlyIf)})`;
    const numbered = db.$with('numbered', {}).as(sql`
      insert into account_event_counters (account_id, last_seq) select ${event.accountId}::text, 1${when}
      on conflict (account_id) do update set last_seq = account_event_counters.last_seq + 1 returning last_seq`);
    const appended = db.$with('appended', {}).as(sql`
      insert into account_events (account_id, seq, type, data, occurred_at)
      select ${event.accountId}::text, last_seq, ${event.type}::text, ${event.data}::text, ${event.occurredAt}::bigint from numbered`);
    return [numbered, appended] as const;
  }

  /** An outbound message's conversation summary moves to it; an older message (arriving late) never overwrites a newer one. */
  function summaryMoved(contactId: string, at: number, previewText: string) {
    const newer: SQL = sql`coalesce(last_message_at, 0) <= ${at}::bigint`;
    return db.$with('summary_moved', {}).as(sql`
      update contacts set
        last_message_at = case when ${newer} then ${at}::bigint else last_message_at end,
        preview_text = case when ${newer} then ${previewText}::text else preview_text end,
        last_outbound_at = greatest(coalesce(last_outbound_at, 0), ${at}::bigint)
      where id = ${contactId}::text`);
  }

  return {
    async send(write: SendWrite): Promise<MessageRow> {
      const event = db.$with('queued_event').as(db.insert(statusEvents).values(write.event).returning({ id: statusEvents.id }));
      const parts: WithSubquery[] = [event, ...logged(write.accountEvent)];
      if (write.contact) parts.push(summaryMoved(write.contact.id, write.message.dateSent, write.contact.previewText));
      const [inserted] = await db
        .with(...parts)
        .insert(messages)
        .values({ ...write.message, wasDowngraded: write.message.wasDowngraded ?? false })
        .returning();
      if (!inserted) throw new Error('message insert returned no row');
      return inserted;
    },
    async statusStep(write: StatusStepWrite): Promise<boolean> {
      const event = db
        .$with('step_event')
        .as(db.insert(statusEvents).values(write.event).onConflictDoNothing().returning({ id: statusEvents.id }));
      const { status, errorCode, errorMessage, wasDowngraded, dateUpdated } = write.update;
      const moved = db.$with('moved', {}).as(sql`
        update messages set status = ${status}::text, error_code = ${errorCode}::bigint, error_message = ${errorMessage}::text,
          was_downgraded = ${wasDowngraded}::boolean, date_updated = ${dateUpdated}::bigint
        where id = ${write.messageId}::bigint and exists (select 1 from step_event)`);
      const written = await db
        .with(event, moved, ...logged(write.accountEvent, 'step_event'))
        .select({ id: event.id })
        .from(event);
      return written.length === 1;
    },
  };
}
