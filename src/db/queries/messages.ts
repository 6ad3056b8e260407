import { and, asc, desc, eq, gte, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { MessageStatus } from '../../domain/status.ts';
import type { Db } from '../connection.ts';
import { placeholdersFor } from '../placeholders.ts';
import { groupMembers, messages, statusEvents } from '../schema.ts';
import type { MessageRow, NewMessageRow, StatusEventRow } from '../rows.ts';

const MESSAGE_COLUMNS = [
  'handle', 'accountId', 'isOutbound', 'messageType', 'status', 'errorCode', 'errorMessage', 'errorDetail',
  'content', 'mediaUrl', 'sendStyle', 'statusCallback', 'lineNumber', 'number', 'recipients', 'contactId',
  'groupId', 'wasDowngraded', 'dateSent', 'dateUpdated',
] as const satisfies readonly (keyof NewMessageRow)[];

const STATUS_EVENT_COLUMNS = [
  'id', 'messageHandle', 'status', 'errorCode', 'errorMessage', 'source', 'applied', 'implied',
  'notAppliedReason', 'receivedAt',
] as const satisfies readonly (keyof StatusEventRow)[];

/** A message row as inserted: optional columns made explicit, since a prepared insert binds every one. */
export type MessageInsert = Omit<NewMessageRow, 'id' | 'errorCode' | 'errorMessage' | 'errorDetail' | 'wasDowngraded'> &
  Partial<Pick<NewMessageRow, 'errorCode' | 'errorMessage' | 'errorDetail' | 'wasDowngraded'>>;

export type MessageListFilter = {
  contactId?: string;
  number?: string;
  groupId?: string;
  status?: MessageStatus;
  isOutbound?: boolean;
  sentSince?: number;
};

export function messageQueries(db: Db) {
  const byHandle = db
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, sql.placeholder('accountId')), eq(messages.handle, sql.placeholder('handle'))))
    .prepare();
  // Both inserts run on every send: prepared once instead of built per call.
  const insertMessage = db.insert(messages).values(placeholdersFor(MESSAGE_COLUMNS)).returning().prepare();
  const insertStatusEvent = db.insert(statusEvents).values(placeholdersFor(STATUS_EVENT_COLUMNS)).prepare();
  const history = db
    .select()
    .from(statusEvents)
    .where(eq(statusEvents.messageHandle, sql.placeholder('handle')))
    .orderBy(asc(statusEvents.receivedAt), asc(statusEvents.id))
    .prepare();

  return {
    insert(row: MessageInsert): MessageRow {
      const inserted = insertMessage.get({
        errorCode: null,
        errorMessage: null,
        errorDetail: null,
        wasDowngraded: null,
        ...row,
      });
      if (!inserted) throw new Error('message insert returned no row');
      return inserted;
    },
    findByHandle(accountId: string, handle: string): MessageRow | undefined {
      return byHandle.get({ accountId, handle });
    },
    list(accountId: string, filter: MessageListFilter, limit: number, offset: number): MessageRow[] {
      const conditions: SQL[] = [eq(messages.accountId, accountId)];
      if (filter.contactId !== undefined) conditions.push(eq(messages.contactId, filter.contactId));
      if (filter.groupId !== undefined) conditions.push(eq(messages.groupId, filter.groupId));
      if (filter.status !== undefined) conditions.push(eq(messages.status, filter.status));
      if (filter.isOutbound !== undefined) conditions.push(eq(messages.isOutbound, filter.isOutbound));
      if (filter.sentSince !== undefined) conditions.push(gte(messages.dateSent, filter.sentSince));
      if (filter.number !== undefined) {
        // A number's messages are its one-to-one conversation plus the groups it belongs to.
        const groupsOfNumber = db
          .select({ groupId: groupMembers.groupId })
          .from(groupMembers)
          .where(eq(groupMembers.number, filter.number));
        conditions.push(or(eq(messages.number, filter.number), inArray(messages.groupId, groupsOfNumber))!);
      }
      return db
        .select()
        .from(messages)
        .where(and(...conditions))
        .orderBy(desc(messages.dateSent), desc(messages.id))
        .limit(limit)
        .offset(offset)
        .all();
    },

    insertStatusEvent(row: StatusEventRow): void {
      insertStatusEvent.run(row);
    },
    history(handle: string): StatusEventRow[] {
      return history.all({ handle });
    },
  };
}
