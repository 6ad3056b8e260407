import { getTableColumns, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { ContactRow, MessageRow } from '../../rows.ts';
import type { MessageInsert, StatusEventInsert } from '../../sqlite/queries/message-writes.ts';
import type { SendWrite } from '../../sqlite/queries/whole-writes.ts';
import type { PgDb } from '../db.ts';
import { messages } from '../schema.ts';
import { eventsLogged, eventsOffered } from './logged-events.ts';
import { type CallbackToQueue, callbacksOffered, withAndWithoutCallbacks } from './queued-callbacks.ts';
import { type ArrayColumn, columnNames, jsonText, unnestedRows } from './unnested-rows.ts';

const MESSAGE_ARRAYS: readonly ArrayColumn<MessageInsert>[] = [
  ['handle', 'text', (m) => m.handle],
  ['account_id', 'text', (m) => m.accountId],
  ['is_outbound', 'boolean', (m) => m.isOutbound],
  ['message_type', 'text', (m) => m.messageType],
  ['status', 'text', (m) => m.status],
  ['error_code', 'bigint', (m) => m.errorCode],
  ['error_message', 'text', (m) => m.errorMessage],
  ['error_detail', 'text', (m) => m.errorDetail],
  ['content', 'text', (m) => m.content ?? ''],
  ['media_url', 'text', (m) => m.mediaUrl ?? ''],
  ['send_style', 'text', (m) => m.sendStyle ?? ''],
  ['status_callback', 'text', (m) => m.statusCallback],
  ['line_number', 'text', (m) => m.lineNumber],
  ['number', 'text', (m) => m.number],
  ['recipients', 'jsonb', (m) => jsonText(m.recipients)],
  ['contact_id', 'text', (m) => m.contactId],
  ['group_id', 'text', (m) => m.groupId],
  ['was_downgraded', 'boolean', (m) => m.wasDowngraded ?? false],
  ['reply_to_handle', 'text', (m) => m.replyToHandle],
  ['reply_to_part_index', 'bigint', (m) => m.replyToPartIndex],
  ['seat_id', 'text', (m) => m.seatId],
  ['opted_out', 'boolean', (m) => m.optedOut ?? false],
  ['transport_handle', 'text', (m) => m.transportHandle],
  ['handed_over_at', 'bigint', (m) => m.handedOverAt],
  ['date_sent', 'bigint', (m) => m.dateSent],
  ['date_updated', 'bigint', (m) => m.dateUpdated],
];
const messagesOffered = unnestedRows('messages_offered', MESSAGE_ARRAYS);

/** The columns of a status event a whole write gives. */
const STATUS_EVENT_ARRAYS: readonly ArrayColumn<StatusEventInsert>[] = [
  ['id', 'text', (e) => e.id],
  ['message_handle', 'text', (e) => e.messageHandle],
  ['status', 'text', (e) => e.status],
  ['error_code', 'bigint', (e) => e.errorCode],
  ['error_message', 'text', (e) => e.errorMessage],
  ['source', 'text', (e) => e.source],
  ['source_event_id', 'text', (e) => e.sourceEventId],
  ['applied', 'boolean', (e) => e.applied],
  ['implied', 'boolean', (e) => e.implied],
  ['not_applied_reason', 'text', (e) => e.notAppliedReason],
  ['received_at', 'bigint', (e) => e.receivedAt],
];
/** The status events a batch writes, in their order. */
export const statusEventsOffered = (alias: string) => unnestedRows(alias, STATUS_EVENT_ARRAYS);
export const STATUS_EVENT_COLUMNS = columnNames(STATUS_EVENT_ARRAYS);
const queuedEventsOffered = statusEventsOffered('queued_events_offered');

/** A new contact whose conversation summary is already its first message's (the statement's update would not see its own new row). */
type NewContact = { row: ContactRow; at: number; previewText: string };
const CONTACT_COLUMNS = [
  ['id', 'text', (c) => c.row.id],
  ['account_id', 'text', (c) => c.row.accountId],
  ['phone', 'text', (c) => c.row.phone],
  ['first_name', 'text', (c) => c.row.firstName],
  ['last_name', 'text', (c) => c.row.lastName],
  ['company_name', 'text', (c) => c.row.companyName],
  ['assigned_to_email', 'text', (c) => c.row.assignedToEmail],
  ['tags', 'jsonb', (c) => jsonText(c.row.tags)],
  ['custom_variables', 'jsonb', (c) => jsonText(c.row.customVariables)],
  ['opted_out', 'boolean', (c) => c.row.optedOut],
  ['deleted_at', 'bigint', (c) => c.row.deletedAt],
  ['last_message_at', 'bigint', (c) => c.at],
  ['preview_text', 'text', (c) => c.previewText],
  ['last_inbound_at', 'bigint', (c) => c.row.lastInboundAt],
  ['last_outbound_at', 'bigint', (c) => c.at],
  ['created_at', 'bigint', (c) => c.row.createdAt],
  ['updated_at', 'bigint', (c) => c.row.updatedAt],
] as const satisfies readonly (readonly [string, string, (c: NewContact) => unknown])[];
const contactsOffered = unnestedRows<NewContact>('contacts_offered', CONTACT_COLUMNS);

/** A known contact's summary move: to its message's time and preview. */
type SummaryMove = { contactId: string; at: number; previewText: string };
const summariesOffered = unnestedRows<SummaryMove>('summaries_offered', [
  ['contact_id', 'text', (s) => s.contactId],
  ['at', 'bigint', (s) => s.at],
  ['preview_text', 'text', (s) => s.previewText],
]);

type Pin = { accountId: string; endUserNumber: string; lineNumber: string; createdAt: number };
const pinsOffered = unnestedRows<Pin>('pins_offered', [
  ['account_id', 'text', (p) => p.accountId],
  ['end_user_number', 'text', (p) => p.endUserNumber],
  ['line_number', 'text', (p) => p.lineNumber],
  ['created_at', 'bigint', (p) => p.createdAt],
]);

const MESSAGE_COLUMNS = Object.entries(getTableColumns(messages)).map(([key, column]) => [key, toSnakeCase(key), column] as const);
const INSERTED_MESSAGE_COLUMNS = columnNames(MESSAGE_ARRAYS);

/**
 * Every part of a batch of sends, each one set-based: the pins and their lines' counts (as
 * accounts.ts's pinWrites), the new contacts with their summaries, the known contacts' summary
 * moves (per contact the newest message's, the latest of equals, as the sends one by one would
 * leave it; an older one never overwrites a newer), the QUEUED events, the account events, the
 * callbacks and the messages, whose rows come back in the sends' order. A unique index a part
 * hits (a contact or pin written meanwhile) fails the whole statement. PostgreSQL runs the
 * CTEs the main query does not read last one first, so the account event counter, written
 * first, is locked after the lines and contacts, as pinning then logging does elsewhere: two
 * transactions taking those rows in opposite orders would deadlock.
 */
const sendsWritten = withAndWithoutCallbacks(
  'sends_written',
  (queued) => sql`
with queued_events as (
  insert into status_events (${STATUS_EVENT_COLUMNS})
  select ${STATUS_EVENT_COLUMNS} from ${queuedEventsOffered.relation} order by ord),
events_in as (select * from ${eventsOffered.relation}),
${eventsLogged},
pins_written as (
  insert into number_pins (account_id, end_user_number, line_number, created_at)
  select account_id, end_user_number, line_number, created_at from ${pinsOffered.relation} order by ord
  returning line_number),
pins_counted as (
  update service_numbers set pinned_count = pinned_count + added.n
  from (select line_number, count(*) as n from pins_written group by line_number) as added
  where number = added.line_number),
contacts_added as (
  insert into contacts (${sql.raw(CONTACT_COLUMNS.map(([name]) => name).join(', '))})
  select ${sql.raw(CONTACT_COLUMNS.map(([name]) => name).join(', '))} from ${contactsOffered.relation} order by ord),
summaries_moved as (
  update contacts as c set
    last_message_at = case when coalesce(c.last_message_at, 0) <= newest.at then newest.at else c.last_message_at end,
    preview_text = case when coalesce(c.last_message_at, 0) <= newest.at then newest.preview_text else c.preview_text end,
    last_outbound_at = greatest(coalesce(c.last_outbound_at, 0), newest.at)
  from (select distinct on (contact_id) contact_id, at, preview_text from ${summariesOffered.relation}
    order by contact_id, at desc, ord desc) as newest
  where c.id = newest.contact_id),
messages_offered as (select * from ${messagesOffered.relation}),
messages_written as (
  insert into messages (${INSERTED_MESSAGE_COLUMNS})
  select ${INSERTED_MESSAGE_COLUMNS} from messages_offered order by ord
  returning *)${queued}
select written.* from messages_written as written join messages_offered as offered on offered.handle = written.handle
order by offered.ord`,
  sql`select * from ${callbacksOffered.relation}`,
);

/** A row as postgres.js answers it (bigint as text), as drizzle would have mapped it. */
function messageRow(raw: Record<string, unknown>): MessageRow {
  const row: Record<string, unknown> = {};
  for (const [key, name, column] of MESSAGE_COLUMNS) {
    const value = raw[name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as MessageRow;
}

export async function sendMany(db: PgDb, calls: readonly (readonly [SendWrite])[]): Promise<MessageRow[]> {
  const writes = calls.map(([write]) => write);
  const events: { call: number; event: SendWrite['accountEvent'] }[] = [];
  const callbacks: CallbackToQueue[] = [];
  const contacts: NewContact[] = [];
  const summaries: SummaryMove[] = [];
  const pins: Pin[] = [];
  writes.forEach((write, index) => {
    const call = index + 1;
    const at = write.event.receivedAt;
    const { message, newContact, contact, pin } = write;
    if (newContact) {
      events.push({ call, event: newContact.accountEvent });
      contacts.push({ row: newContact.row, at: message.dateSent, previewText: contact?.previewText ?? '' });
    } else if (contact) summaries.push({ contactId: contact.id, at: message.dateSent, previewText: contact.previewText });
    events.push({ call, event: write.accountEvent });
    if (pin) pins.push({ accountId: message.accountId, endUserNumber: pin.endUserNumber, lineNumber: message.lineNumber, createdAt: at });
    for (const callback of write.callbacks) callbacks.push({ call, callback, at });
  });
  const values: Record<string, unknown[]> = {};
  messagesOffered.values(
    writes.map((w) => w.message),
    values,
  );
  queuedEventsOffered.values(
    writes.map((w) => w.event),
    values,
  );
  eventsOffered.values(events, values);
  callbacksOffered.values(callbacks, values);
  contactsOffered.values(contacts, values);
  summariesOffered.values(summaries, values);
  pinsOffered.values(pins, values);
  const rows = await sendsWritten(db, values, callbacks.length > 0);
  if (rows.length !== writes.length) throw new Error(`${writes.length} message inserts returned ${rows.length} rows`);
  return rows.map(messageRow);
}
