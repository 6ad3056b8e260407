import { getTableColumns } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { MessageRow, NewMessageRow, StatusEventRow } from '../../rows.ts';
import { messages } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { messageFromValues } from './message-values.ts';

/**
 * The statements every send and every status event runs, written for better-sqlite3 with
 * positional parameters and rows read as arrays: drizzle's prepared statements map each call's
 * parameters and result columns by name, which costs more than SQLite takes to run these.
 */

/** A message row as inserted: optional columns made explicit, since a prepared insert binds every one. */
type OptionalColumn =
  | 'errorCode'
  | 'errorMessage'
  | 'errorDetail'
  | 'wasDowngraded'
  | 'replyToHandle'
  | 'replyToPartIndex'
  | 'seatId'
  | 'transportHandle'
  | 'handedOverAt';
export type MessageInsert = Omit<NewMessageRow, 'id' | OptionalColumn> & Partial<Pick<NewMessageRow, OptionalColumn>>;

/** What a status change writes onto the message. */
export type StatusUpdate = Pick<MessageRow, 'status' | 'errorCode' | 'errorMessage' | 'wasDowngraded' | 'dateUpdated'>;

export type StatusEventInsert = Omit<StatusEventRow, 'sourceEventId' | 'repeats'> & { sourceEventId?: string | null };
/** What makes two reports of a message the same event, when the reporter gives them no id. */
export type StatusEventIdentity = Pick<StatusEventRow, 'messageHandle' | 'source' | 'status' | 'errorCode' | 'errorMessage'>;
/** What a status report finds: its event seen already (by the reporter's event id), or the message it applies to, if any. */
export type ReportTarget = { seen: true } | { seen: false; message: MessageRow | undefined };

/** Every column of `messages` in drizzle's order, the order messageFromValues reads. */
const MESSAGE_ROW = Object.keys(getTableColumns(messages)).map(toSnakeCase).join(', ');

const INSERTED_COLUMNS = [
  'handle',
  'account_id',
  'is_outbound',
  'message_type',
  'status',
  'error_code',
  'error_message',
  'error_detail',
  'content',
  'media_url',
  'send_style',
  'status_callback',
  'line_number',
  'number',
  'recipients',
  'contact_id',
  'group_id',
  'was_downgraded',
  'reply_to_handle',
  'reply_to_part_index',
  'seat_id',
  'transport_handle',
  'handed_over_at',
  'date_sent',
  'date_updated',
];

function flagValue(value: boolean | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function messageWrites(db: Db) {
  const client = db.$client;
  // No RETURNING: the row is what was bound, and reading it back would copy every value again.
  const insertMessage = client.prepare(
    `insert into messages (${INSERTED_COLUMNS.join(', ')}) values (${INSERTED_COLUMNS.map(() => '?').join(', ')})`,
  );
  // Ignoring conflicts is the idempotency: the unique indexes on status_events say what a duplicate is.
  const insertStatusEvent = client.prepare(`
    insert into status_events
      (id, message_handle, status, error_code, error_message, source, source_event_id, applied, implied, not_applied_reason, received_at)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`);
  // Two lookups, ours first: as one `handle = ? or transport_handle = ?`, SQLite merges both index
  // searches through a temporary rowset, which costs three times a single search (each send is
  // looked up so several times on its way to the transport).
  const byOurHandle = client.prepare(`select ${MESSAGE_ROW} from messages where handle = ?`).raw(true);
  const byTransportHandle = client.prepare(`select ${MESSAGE_ROW} from messages where transport_handle = ?`).raw(true);
  const updateStatus = client.prepare(
    'update messages set status = ?, error_code = ?, error_message = ?, was_downgraded = ?, date_updated = ? where id = ?',
  );
  // Once per send, when the transport accepted it.
  const markHandedOver = client.prepare('update messages set transport_handle = ?, handed_over_at = ? where id = ?');
  const sourceEventSeen = client.prepare('select 1 from status_events where source = ? and source_event_id = ?').pluck();
  // An implied event was never reported: a report of its status is news, not a repeat.
  const countRepeat = client.prepare(`
    update status_events set repeats = repeats + 1 where rowid = (
      select rowid from status_events
      where message_handle = ? and source = ? and status = +? and error_code is ? and error_message is ? and not implied limit 1)`);

  return {
    insert(row: MessageInsert): MessageRow {
      // As stored, and as the PostgreSQL twin stores them: a missing optional value as null, a missing flag as false.
      const stored: MessageRow = {
        id: 0,
        handle: row.handle,
        accountId: row.accountId,
        isOutbound: row.isOutbound,
        messageType: row.messageType,
        status: row.status,
        errorCode: row.errorCode ?? null,
        errorMessage: row.errorMessage ?? null,
        errorDetail: row.errorDetail ?? null,
        content: row.content ?? '',
        mediaUrl: row.mediaUrl ?? '',
        sendStyle: row.sendStyle ?? '',
        statusCallback: row.statusCallback ?? null,
        lineNumber: row.lineNumber,
        number: row.number,
        recipients: row.recipients ? [...row.recipients] : null,
        contactId: row.contactId ?? null,
        groupId: row.groupId ?? null,
        wasDowngraded: row.wasDowngraded === true,
        replyToHandle: row.replyToHandle ?? null,
        replyToPartIndex: row.replyToPartIndex ?? null,
        seatId: row.seatId ?? null,
        optedOut: false,
        transportHandle: row.transportHandle ?? null,
        handedOverAt: row.handedOverAt ?? null,
        dateSent: row.dateSent,
        dateUpdated: row.dateUpdated,
      };
      const { lastInsertRowid } = insertMessage.run(
        stored.handle,
        stored.accountId,
        Number(stored.isOutbound),
        stored.messageType,
        stored.status,
        stored.errorCode,
        stored.errorMessage,
        stored.errorDetail,
        stored.content,
        stored.mediaUrl,
        stored.sendStyle,
        stored.statusCallback,
        stored.lineNumber,
        stored.number,
        // JSON `null` when there are none, as drizzle's column mapper stored it.
        JSON.stringify(stored.recipients),
        stored.contactId,
        stored.groupId,
        Number(stored.wasDowngraded),
        stored.replyToHandle,
        stored.replyToPartIndex,
        stored.seatId,
        stored.transportHandle,
        stored.handedOverAt,
        stored.dateSent,
        stored.dateUpdated,
      );
      stored.id = Number(lastInsertRowid);
      return stored;
    },
    findByAnyHandle(handle: string): MessageRow | undefined {
      const values = (byOurHandle.get(handle) ?? byTransportHandle.get(handle)) as unknown[] | undefined;
      return values === undefined ? undefined : messageFromValues(values);
    },
    updateStatus(messageId: number, update: StatusUpdate): void {
      updateStatus.run(
        update.status,
        update.errorCode,
        update.errorMessage,
        flagValue(update.wasDowngraded),
        update.dateUpdated,
        messageId,
      );
    },
    markHandedOver(messageId: number, transportHandle: string, at: number): void {
      markHandedOver.run(transportHandle, at, messageId);
    },
    /** False when a unique index says the event is already recorded. */
    insertStatusEvent(row: StatusEventInsert): boolean {
      return (
        insertStatusEvent.run(
          row.id,
          row.messageHandle,
          row.status,
          row.errorCode,
          row.errorMessage,
          row.source,
          row.sourceEventId ?? null,
          Number(row.applied),
          Number(row.implied),
          row.notAppliedReason,
          row.receivedAt,
        ).changes === 1
      );
    },
    sourceEventSeen(source: string, sourceEventId: string): boolean {
      return sourceEventSeen.get(source, sourceEventId) !== undefined;
    },
    findReportTarget(handle: string, source: string, sourceEventId: string | null): ReportTarget {
      if (sourceEventId !== null && sourceEventSeen.get(source, sourceEventId) !== undefined) return { seen: true };
      const values = (byOurHandle.get(handle) ?? byTransportHandle.get(handle)) as unknown[] | undefined;
      return { seen: false, message: values === undefined ? undefined : messageFromValues(values) };
    },
    /** Counts one more report of an event the message's history holds; false when it holds none such. */
    countRepeat(event: StatusEventIdentity): boolean {
      return countRepeat.run(event.messageHandle, event.source, event.status, event.errorCode, event.errorMessage).changes === 1;
    },
  };
}
