import { and, desc, eq, getTableColumns, gt, gte, inArray, isNull, ne, type SQL, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { type AccountFacts, listRecordJson } from '../../../domain/views.ts';
import type { MessageRow, StatusEventRow } from '../../rows.ts';
import type {
  MessageInsert,
  MessageListFilter,
  ReportTarget,
  StatusEventIdentity,
  StatusEventInsert,
  StatusUpdate,
} from '../../sqlite/queries/messages.ts';
import type { PgDb } from '../db.ts';
import { groupMembers, groups, messages, statusEvents } from '../schema.ts';
import { arrivalOrder, statusEventRowColumns } from './status-event-order.ts';

/**
 * Listing by number reads one index range per group up to this many groups; past that, one
 * branch reads the messages of all the number's groups and sorts them.
 */
const MAX_MERGED_GROUPS = 100;

export function messageQueries(db: PgDb) {
  const groupsOfNumber = (accountId: string, number: string) =>
    db
      .select({ groupId: groupMembers.groupId })
      .from(groupMembers)
      .innerJoin(groups, eq(groups.id, groupMembers.groupId))
      .where(and(eq(groupMembers.number, number), eq(groups.accountId, accountId)));

  async function listByNumber(conditions: SQL[], accountId: string, number: string, limit: number, offset: number) {
    const newestFirst = [desc(messages.dateSent), desc(messages.id)] as const;
    const select = (...more: SQL[]) =>
      db
        .select()
        .from(messages)
        .where(and(...conditions, ...more))
        .orderBy(...newestFirst);
    const groupIds = (await groupsOfNumber(accountId, number)).map((row) => row.groupId);
    if (groupIds.length === 0) return select(eq(messages.number, number)).limit(limit).offset(offset);
    // A number's messages are its one-to-one conversation plus the groups it belongs to. As one
    // `number = $1 OR group_id IN (...)` filter PostgreSQL reads and sorts every message of those
    // conversations; as one branch per conversation (messages_account_number_date_idx,
    // messages_account_group_date_idx), UNION ALL reads at most offset + limit rows per branch
    // and sorts only those. The branches carry their own ORDER BY and LIMIT: a flattened UNION ALL
    // is not merged in index order (the account and group equalities of its branches do not count
    // as constants for ordering), so it would read and sort every row of every conversation.
    // Group rows sent by the number itself are in the first branch, so the others skip them.
    const branch = (...more: SQL[]) => select(...more).limit(offset + limit);
    const otherMember = ne(messages.number, number);
    const groupBranches =
      groupIds.length <= MAX_MERGED_GROUPS
        ? groupIds.map((groupId) => branch(eq(messages.groupId, groupId), otherMember))
        : [branch(inArray(messages.groupId, groupsOfNumber(accountId, number)), otherMember)];
    const listed = unionAll(branch(eq(messages.number, number)), ...(groupBranches as [ReturnType<typeof branch>])).as('listed');
    return db.select().from(listed).orderBy(desc(listed.dateSent), desc(listed.id)).limit(limit).offset(offset);
  }

  async function listRows(accountId: string, filter: MessageListFilter, limit: number, offset: number): Promise<MessageRow[]> {
    const conditions: SQL[] = [eq(messages.accountId, accountId)];
    if (filter.contactId !== undefined) conditions.push(eq(messages.contactId, filter.contactId));
    if (filter.groupId !== undefined) conditions.push(eq(messages.groupId, filter.groupId));
    if (filter.status !== undefined) conditions.push(eq(messages.status, filter.status));
    if (filter.isOutbound !== undefined) conditions.push(eq(messages.isOutbound, filter.isOutbound));
    if (filter.sentSince !== undefined) conditions.push(gte(messages.dateSent, filter.sentSince));
    if (filter.number !== undefined) return listByNumber(conditions, accountId, filter.number, limit, offset);
    return db
      .select()
      .from(messages)
      .where(and(...conditions))
      .orderBy(desc(messages.dateSent), desc(messages.id))
      .limit(limit)
      .offset(offset);
  }

  return {
    async insert(row: MessageInsert): Promise<MessageRow> {
      // SQLite's prepared insert maps a missing flag through the boolean column: it stores false, not null.
      const [inserted] = await db
        .insert(messages)
        .values({ ...row, wasDowngraded: row.wasDowngraded ?? false })
        .returning();
      if (!inserted) throw new Error('message insert returned no row');
      return inserted;
    },
    async findByHandle(accountId: string, handle: string): Promise<MessageRow | undefined> {
      const [row] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.accountId, accountId), eq(messages.handle, handle)));
      return row;
    },
    /** Any account's message by our handle or the transport's: transports and ingest know no account. */
    async findByAnyHandle(handle: string): Promise<MessageRow | undefined> {
      const [ours] = await db.select().from(messages).where(eq(messages.handle, handle));
      if (ours) return ours;
      const [theirs] = await db.select().from(messages).where(eq(messages.transportHandle, handle));
      return theirs;
    },
    /**
     * Whether a report's event id was seen, else its message by either handle, locked until the
     * transaction ends: two instances recording statuses of one message take turns, and the second
     * reads what the first committed (its status, and callbacks queued behind the first's). One
     * round trip when the message exists; a report of an unknown handle asks about its event id apart.
     */
    async findReportTarget(handle: string, source: string, sourceEventId: string | null): Promise<ReportTarget> {
      const seen =
        sourceEventId === null
          ? sql<boolean>`false`
          : sql<boolean>`exists (select 1 from ${statusEvents} where ${statusEvents.source} = ${source} and ${statusEvents.sourceEventId} = ${sourceEventId})`;
      const id = sql`coalesce((select id from ${messages} where handle = ${handle}), (select id from ${messages} where transport_handle = ${handle} limit 1))`;
      const [row] = await db
        .select({ seen, message: getTableColumns(messages) })
        .from(messages)
        .where(eq(messages.id, id))
        .for('update');
      if (row) return row.seen ? { seen: true } : { seen: false, message: row.message };
      return sourceEventId !== null && (await this.sourceEventSeen(source, sourceEventId))
        ? { seen: true }
        : { seen: false, message: undefined };
    },
    /** An inbound STOP: the message that opted its sender out says so. */
    async markOptedOut(messageId: number): Promise<void> {
      await db.update(messages).set({ optedOut: true }).where(eq(messages.id, messageId));
    },
    async updateStatus(messageId: number, update: StatusUpdate): Promise<void> {
      await db.update(messages).set(update).where(eq(messages.id, messageId));
    },
    /** Records that the transport accepted the message, under its own handle. */
    async markHandedOver(messageId: number, transportHandle: string, at: number): Promise<void> {
      await db.update(messages).set({ transportHandle, handedOverAt: at }).where(eq(messages.id, messageId));
    },
    /**
     * Outbound messages accepted but never handed over, oldest first, from after the message id
     * `afterId` (messages_awaiting_handover_idx: its predicate is written out, not bound, so that a
     * generic plan can still use it).
     */
    async awaitingHandover(limit: number, afterId = 0): Promise<MessageRow[]> {
      return db
        .select()
        .from(messages)
        .where(
          and(isNull(messages.handedOverAt), sql`${messages.isOutbound}`, sql`${messages.status} = 'QUEUED'`, gt(messages.id, afterId)),
        )
        .orderBy(messages.id)
        .limit(limit);
    },
    /** GET /accounts/messages: the page's records (listRecordJson), as the text of a JSON array. */
    async listJson(accountId: string, filter: MessageListFilter, limit: number, offset: number, account: AccountFacts): Promise<string> {
      const rows = await listRows(accountId, filter, limit, offset);
      return `[${rows.map((row) => listRecordJson(row, account)).join(',')}]`;
    },
    list: listRows,

    /** False when a unique index says the event is already recorded. */
    async insertStatusEvent(row: StatusEventInsert): Promise<boolean> {
      const inserted = await db.insert(statusEvents).values(row).onConflictDoNothing().returning({ id: statusEvents.id });
      return inserted.length === 1;
    },
    async sourceEventSeen(source: string, sourceEventId: string): Promise<boolean> {
      const [seen] = await db
        .select({ id: statusEvents.id })
        .from(statusEvents)
        .where(and(eq(statusEvents.source, source), eq(statusEvents.sourceEventId, sourceEventId)))
        .limit(1);
      return seen !== undefined;
    },
    /** Counts one more report of an event the message's history holds; false when it holds none such. */
    async countRepeat(event: StatusEventIdentity): Promise<boolean> {
      const e = statusEvents;
      const same = db
        .select({ id: e.id })
        .from(e)
        .where(
          and(
            eq(e.messageHandle, event.messageHandle),
            eq(e.source, event.source),
            eq(e.status, event.status),
            eq(e.implied, false),
            sql`${e.errorCode} is not distinct from ${event.errorCode}::bigint`,
            sql`${e.errorMessage} is not distinct from ${event.errorMessage}::text`,
          ),
        )
        .limit(1);
      const counted = await db
        .update(e)
        .set({ repeats: sql`${e.repeats} + 1` })
        .where(eq(e.id, same))
        .returning({ id: e.id });
      return counted.length === 1;
    },
    /** The message's events in arrival order (status_events_handle_idx). */
    async history(handle: string): Promise<StatusEventRow[]> {
      return db
        .select(statusEventRowColumns)
        .from(statusEvents)
        .where(eq(statusEvents.messageHandle, handle))
        .orderBy(...arrivalOrder);
    },
  };
}
