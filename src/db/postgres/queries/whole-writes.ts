import { type SQL, sql } from 'drizzle-orm';
import type { WithSubquery } from 'drizzle-orm/subquery';
import type { ContactRow, MessageRow } from '../../rows.ts';
import type { NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import type { SendWrite, StatusStepWrite } from '../../sqlite/queries/whole-writes.ts';
import type { PgDb } from '../db.ts';
import { contacts, messages, statusEvents } from '../schema.ts';
import { pinWrites } from './accounts.ts';
import { callbacksQueued } from './queued-callbacks.ts';

/**
 * The PostgreSQL twin of ../../sqlite/queries/whole-writes.ts: each whole write is one statement,
 * its parts data-modifying CTEs, so a send or a status step costs one round trip instead of one
 * per row. A unique index a part hits (a contact or pin written meanwhile) fails the whole statement. Every value is cast, as the statement is prepared once per connection for every call.
 */
export function wholeWriteQueries(db: PgDb) {
  /**
   * The account events' CTEs: their numbers, in their order (locking the account's counter row
   * until the commit, see account-events.ts), and the events, written only when `onlyIf` (a CTE's
   * name) returned a row. Every event is the same account's.
   */
  function logged(events: readonly NewAccountEvent[], onlyIf?: string) {
    const accountId = events[0]!.accountId;
    const when = onlyIf === undefined ? sql`` : sql` where exists (select 1 from ${sql.identifier(onlyIf)})`;
    const numbered = db.$with('numbered', {}).as(sql`
      insert into account_event_counters (account_id, last_seq) select ${accountId}::text, ${events.length}::bigint${when}
      on conflict (account_id) do update set last_seq = account_event_counters.last_seq + excluded.last_seq returning last_seq`);
    const rows = sql.join(
      events.map((e, i) => sql`(${i + 1 - events.length}::bigint, ${e.type}::text, ${e.data}::text, ${e.occurredAt}::bigint)`),
      sql`, `,
    );
    const appended = db.$with('appended', {}).as(sql`
      insert into account_events (account_id, seq, type, data, occurred_at)
      select ${accountId}::text, last_seq + e.back, e.type, e.data, e.occurred_at
      from numbered, (values ${rows}) as e (back, type, data, occurred_at)`);
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

  /** A new contact whose conversation summary is already this outbound message's. */
  function contactAdded(row: ContactRow, at: number, previewText: string) {
    return db.$with('contact_added').as(
      db
        .insert(contacts)
        .values({ ...row, lastMessageAt: at, previewText, lastOutboundAt: at })
        .returning({ id: contacts.id }),
    );
  }

  return {
    async send(write: SendWrite): Promise<MessageRow> {
      const { message, newContact, pin, callbacks } = write;
      const at = write.event.receivedAt;
      const event = db.$with('queued_event').as(db.insert(statusEvents).values(write.event).returning({ id: statusEvents.id }));
      const parts: WithSubquery[] = [event, ...logged(newContact ? [newContact.accountEvent, write.accountEvent] : [write.accountEvent])];
      if (pin)
        parts.push(
          ...pinWrites(db, {
            accountId: message.accountId,
            endUserNumber: pin.endUserNumber,
            lineNumber: message.lineNumber,
            createdAt: at,
          }),
        );
      // The statement's update would not see its own new contact: that one is inserted with the summary already moved.
      if (newContact) parts.push(contactAdded(newContact.row, message.dateSent, write.contact?.previewText ?? ''));
      else if (write.contact) parts.push(summaryMoved(write.contact.id, message.dateSent, write.contact.previewText));
      if (callbacks.length > 0) parts.push(callbacksQueued(db, callbacks, at));
      const [inserted] = await db
        .with(...parts)
        .insert(messages)
        .values({ ...message, wasDowngraded: message.wasDowngraded ?? false })
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
      const parts: WithSubquery[] = [event, moved, ...logged([write.accountEvent], 'step_event')];
      if (write.callbacks.length > 0) parts.push(callbacksQueued(db, write.callbacks, write.event.receivedAt, 'step_event'));
      const written = await db
        .with(...parts)
        .select({ id: event.id })
        .from(event);
      return written.length === 1;
    },
  };
}
