import { and, desc, eq, getTableColumns, gt, gte, inArray, isNotNull, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import { type PgInsertValue, unionAll } from 'drizzle-orm/pg-core';
import { type AccountFacts, listRecordJson } from '../../../domain/views.ts';
import type { MessageRow, StatusEventRow } from '../../rows.ts';
import type {
  HandoverPosition,
  HandoverSender,
  MessageInsert,
  MessageListFilter,
  ReportTarget,
  StatusEventIdentity,
  StatusEventInsert,
  StatusUpdate,
  UnsettledCursor,
} from '../../sqlite/queries/messages.ts';
import type { PgDb } from '../db.ts';
import { groupMembers, groups, messages, statusEvents } from '../schema.ts';
import { preparedOnce, sqlPreparedOnce } from './prepared-once.ts';
import { withRowMapper } from './row-mapper.ts';
import { arrivalOrder, statusEventRowColumns } from './status-event-order.ts';

/**
 * Listing by number reads one index range per group up to this many groups; past that, one
 * branch reads the messages of all the number's groups and sorts them.
 */
const MAX_MERGED_GROUPS = 100;
/** Prepared listing statements kept (one per combination of filters and group count). */
const MAX_CACHED_LISTINGS = 500;

type ListingValues = Record<string, unknown>;

const p = sql.placeholder;

/** The id of the message whose handle, ours or else the transport's, is `handle` (an SQL expression). */
const idOfHandle = (handle: SQL) =>
  sql`coalesce((select id from ${messages} where handle = ${handle}), (select id from ${messages} where transport_handle = ${handle} limit 1))`;

/** Whether the reporter's event `sourceEventId` of `source` was recorded (false for no id). */
const eventSeen = (source: SQL, sourceEventId: SQL) =>
  sql<boolean>`exists (select 1 from ${statusEvents} where ${statusEvents.source} = ${source} and ${statusEvents.sourceEventId} = ${sourceEventId})`;

/** A whole new row, each column a placeholder of its name (recipients as JSON text: a placeholder's encoder would store null as JSON). */
const messageInserted = preparedOnce('message_inserted', (db) => {
  const { id: _id, ...columns } = getTableColumns(messages);
  const values = Object.fromEntries(Object.keys(columns).map((column) => [column, p(column)]));
  return db
    .insert(messages)
    .values({ ...values, recipients: sql`${p('recipients')}::jsonb` } as PgInsertValue<typeof messages>)
    .returning();
});

/** The values of messageInserted: a missing optional value as null, a missing flag as false (SQLite stores them so). */
function insertedValues(row: MessageInsert): Record<string, unknown> {
  return {
    ...row,
    errorCode: row.errorCode ?? null,
    errorMessage: row.errorMessage ?? null,
    errorDetail: row.errorDetail ?? null,
    content: row.content ?? '',
    mediaUrl: row.mediaUrl ?? '',
    sendStyle: row.sendStyle ?? '',
    statusCallback: row.statusCallback ?? null,
    recipients: row.recipients ? JSON.stringify(row.recipients) : null,
    contactId: row.contactId ?? null,
    groupId: row.groupId ?? null,
    wasDowngraded: row.wasDowngraded ?? false,
    replyToHandle: row.replyToHandle ?? null,
    replyToPartIndex: row.replyToPartIndex ?? null,
    seatId: row.seatId ?? null,
    optedOut: row.optedOut ?? false,
    transportHandle: row.transportHandle ?? null,
    handedOverAt: row.handedOverAt ?? null,
  };
}

const byAnyHandle = preparedOnce('message_by_any_handle', (db) =>
  db
    .select()
    .from(messages)
    .where(eq(messages.id, idOfHandle(sql`${p('handle')}::text`))),
);

const byAnyHandles = preparedOnce('messages_by_any_handles', (db) => {
  const target = db
    .select()
    .from(messages)
    .where(eq(messages.id, idOfHandle(sql`asked.handle`)))
    .as('target');
  return db
    .select({ message: target._.selectedFields })
    .from(sql`unnest(${p('handles')}::text[]) with ordinality as asked (handle, ord)`)
    .leftJoinLateral(target, sql`true`)
    .orderBy(sql`asked.ord`);
});

/** The report's message locked until the transaction ends, and whether its event id was seen. */
const reportTarget = preparedOnce('report_target', (db) =>
  db
    .select({ seen: eventSeen(sql`${p('source')}::text`, sql`${p('sourceEventId')}::text`), message: getTableColumns(messages) })
    .from(messages)
    .where(eq(messages.id, idOfHandle(sql`${p('handle')}::text`)))
    .for('update'),
);

const reportTargets = preparedOnce('report_targets', (db) => {
  const target = db
    .select()
    .from(messages)
    .where(eq(messages.id, idOfHandle(sql`asked.handle`)))
    .for('update')
    .as('target');
  return db
    .select({ seen: eventSeen(sql`asked.source`, sql`asked.source_event_id`), message: target._.selectedFields })
    .from(
      sql`unnest(${p('handles')}::text[], ${p('sources')}::text[], ${p('sourceEventIds')}::text[]) with ordinality as asked (handle, source, source_event_id, ord)`,
    )
    .leftJoinLateral(target, sql`true`)
    .orderBy(sql`asked.ord`);
});

const sourceEventSeen = preparedOnce('source_event_seen', (db) =>
  db
    .select({ id: statusEvents.id })
    .from(statusEvents)
    .where(and(eq(statusEvents.source, p('source')), eq(statusEvents.sourceEventId, p('sourceEventId'))))
    .limit(1),
);

const handedOver = preparedOnce('message_handed_over', (db) =>
  db
    .update(messages)
    .set({ transportHandle: sql`${p('transportHandle')}::text`, handedOverAt: sql`${p('at')}::bigint` })
    .where(eq(messages.id, p('messageId'))),
);

/** Each call's hand-over; of two calls for one message, the later one's, as one after the other. */
const handedOverMany = sqlPreparedOnce(
  'messages_handed_over',
  () => sql`
    update ${messages} set transport_handle = handed.transport_handle, handed_over_at = handed.at
    from (
      select distinct on (id) id, transport_handle, at
      from unnest(${p('messageIds')}::bigint[], ${p('transportHandles')}::text[], ${p('ats')}::bigint[]) with ordinality as asked (id, transport_handle, at, ord)
      order by id, ord desc) as handed
    where ${messages.id} = handed.id`,
);

const statusEventInserted = preparedOnce('status_event_inserted', (db) =>
  db
    .insert(statusEvents)
    .values({
      id: p('id'),
      messageHandle: p('messageHandle'),
      status: p('status'),
      errorCode: p('errorCode'),
      errorMessage: p('errorMessage'),
      source: p('source'),
      sourceEventId: p('sourceEventId'),
      applied: p('applied'),
      implied: p('implied'),
      notAppliedReason: p('notAppliedReason'),
      receivedAt: p('receivedAt'),
    })
    .onConflictDoNothing()
    .returning({ id: statusEvents.id }),
);

export function messageQueries(db: PgDb) {
  const p = sql.placeholder;
  const groupsOfNumberQuery = () =>
    db
      .select({ groupId: groupMembers.groupId })
      .from(groupMembers)
      .innerJoin(groups, eq(groups.id, groupMembers.groupId))
      .where(and(eq(groupMembers.number, p('number')), eq(groups.accountId, p('accountId'))));
  // Prepared at first use: a transaction builds this module anew and mostly lists nothing.
  let groupsOfNumber: ReturnType<ReturnType<typeof groupsOfNumberQuery>['prepare']> | undefined;

  /**
   * The page's rows, newest first, with placeholders for the filter's values: `group0`... are the
   * number's groups, `reach` is offset + limit. Built and prepared once per shape (listingOf).
   */
  function pageQuery(present: Set<string>, groupCount: number) {
    const conditions: SQL[] = [eq(messages.accountId, p('accountId'))];
    if (present.has('contactId')) conditions.push(eq(messages.contactId, p('contactId')));
    if (present.has('groupId')) conditions.push(eq(messages.groupId, p('groupId')));
    if (present.has('status')) conditions.push(eq(messages.status, p('status')));
    if (present.has('isOutbound')) conditions.push(eq(messages.isOutbound, p('isOutbound')));
    if (present.has('sentSince')) conditions.push(gte(messages.dateSent, p('sentSince')));
    const newestFirst = [desc(messages.dateSent), desc(messages.id)] as const;
    const select = (...more: SQL[]) =>
      db
        .select()
        .from(messages)
        .where(and(...conditions, ...more))
        .orderBy(...newestFirst);
    if (!present.has('number')) return select().limit(p('limit')).offset(p('offset'));
    if (groupCount === 0)
      return select(eq(messages.number, p('number')))
        .limit(p('limit'))
        .offset(p('offset'));
    // A number's messages are its one-to-one conversation plus the groups it belongs to. As one
    // `number = $1 OR group_id IN (...)` filter PostgreSQL reads and sorts every message of those
    // conversations; as one branch per conversation (messages_account_number_date_idx,
    // messages_account_group_date_idx), UNION ALL reads at most offset + limit rows per branch
    // and sorts only those. The branches carry their own ORDER BY and LIMIT: a flattened UNION ALL
    // is not merged in index order (the account and group equalities of its branches do not count
    // as constants for ordering), so it would read and sort every row of every conversation.
    // Group rows sent by the number itself are in the first branch, so the others skip them.
    const branch = (...more: SQL[]) => select(...more).limit(p('reach'));
    const otherMember = ne(messages.number, p('number'));
    const groupBranches =
      groupCount <= MAX_MERGED_GROUPS
        ? Array.from({ length: groupCount }, (_, i) => branch(eq(messages.groupId, p(`group${i}`)), otherMember))
        : [branch(inArray(messages.groupId, groupsOfNumberQuery()), otherMember)];
    const listed = unionAll(branch(eq(messages.number, p('number'))), ...(groupBranches as [ReturnType<typeof branch>])).as('listed');
    return db.select().from(listed).orderBy(desc(listed.dateSent), desc(listed.id)).limit(p('limit')).offset(p('offset'));
  }

  const prepareRows = (present: Set<string>, groupCount: number) => withRowMapper(pageQuery(present, groupCount).prepare('message_rows'));
  const listings = new Map<string, ReturnType<typeof prepareRows>>();

  /** The statement of a listing's shape, prepared on first use, and the values of its placeholders. */
  async function listingOf(accountId: string, filter: MessageListFilter, limit: number, offset: number) {
    const values: ListingValues = { ...filter, accountId, limit, offset, reach: offset + limit };
    const present = new Set(Object.keys(filter).filter((key) => filter[key as keyof MessageListFilter] !== undefined));
    let groupCount = 0;
    if (filter.number !== undefined) {
      groupsOfNumber ??= groupsOfNumberQuery().prepare('groups_of_number');
      const groupIds = (await groupsOfNumber.execute({ number: filter.number, accountId })).map((row) => row.groupId);
      groupCount = groupIds.length;
      if (groupCount <= MAX_MERGED_GROUPS) {
        for (const [i, groupId] of groupIds.entries()) values[`group${i}`] = groupId;
      }
    }
    const key = `${[...present].sort().join(',')} ${Math.min(groupCount, MAX_MERGED_GROUPS + 1)}`;
    let listing = listings.get(key);
    if (listing === undefined) {
      if (listings.size >= MAX_CACHED_LISTINGS) listings.clear();
      listing = prepareRows(present, groupCount);
      listings.set(key, listing);
    }
    return { listing, values };
  }

  async function listRows(accountId: string, filter: MessageListFilter, limit: number, offset: number): Promise<MessageRow[]> {
    const { listing, values } = await listingOf(accountId, filter, limit, offset);
    return listing.execute(values);
  }

  return {
    async insert(row: MessageInsert): Promise<MessageRow> {
      const [inserted] = await messageInserted(db).execute(insertedValues(row));
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
      const [row] = await byAnyHandle(db).execute({ handle });
      return row;
    },
    /** findByAnyHandle of each call, in one statement. */
    async findByAnyHandleMany(calls: readonly [handle: string][]): Promise<(MessageRow | undefined)[]> {
      if (calls.length === 0) return [];
      const rows = await byAnyHandles(db).execute({ handles: calls.map(([handle]) => handle) });
      return rows.map((row) => row.message ?? undefined);
    },
    /**
     * Whether a report's event id was seen, else its message by either handle, locked until the
     * transaction ends: two instances recording statuses of one message take turns, and the second
     * reads what the first committed (its status, and callbacks queued behind the first's). One
     * round trip when the message exists; a report of an unknown handle asks about its event id apart.
     */
    async findReportTarget(handle: string, source: string, sourceEventId: string | null): Promise<ReportTarget> {
      const [row] = await reportTarget(db).execute({ handle, source, sourceEventId });
      if (row) return row.seen ? { seen: true } : { seen: false, message: row.message };
      return sourceEventId !== null && (await this.sourceEventSeen(source, sourceEventId))
        ? { seen: true }
        : { seen: false, message: undefined };
    },
    /** findReportTarget of each call, in one statement. */
    async findReportTargetMany(calls: readonly [handle: string, source: string, sourceEventId: string | null][]): Promise<ReportTarget[]> {
      if (calls.length === 0) return [];
      const rows = await reportTargets(db).execute({
        handles: calls.map(([handle]) => handle),
        sources: calls.map(([, source]) => source),
        sourceEventIds: calls.map(([, , sourceEventId]) => sourceEventId),
      });
      return rows.map((row): ReportTarget => (row.seen ? { seen: true } : { seen: false, message: row.message ?? undefined }));
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
      await handedOver(db).execute({ messageId, transportHandle, at });
    },
    /** markHandedOver of each call, in one statement. */
    async markHandedOverMany(calls: readonly [messageId: number, transportHandle: string, at: number][]): Promise<undefined[]> {
      if (calls.length > 0)
        await handedOverMany(db).execute({
          messageIds: calls.map(([messageId]) => messageId),
          transportHandles: calls.map(([, transportHandle]) => transportHandle),
          ats: calls.map(([, , at]) => at),
        });
      return calls.map(() => undefined);
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
    async handoverSenders(): Promise<HandoverSender[]> {
      return db
        .selectDistinct({ accountId: messages.accountId, lineNumber: messages.lineNumber })
        .from(messages)
        .where(and(isNull(messages.handedOverAt), sql`${messages.isOutbound}`, sql`${messages.status} = 'QUEUED'`));
    },
    async awaitingHandoverFrom(
      sender: HandoverSender,
      limit: number,
      after?: Pick<HandoverPosition, 'dateSent' | 'id'>,
    ): Promise<HandoverPosition[]> {
      return db
        .select({ id: messages.id, handle: messages.handle, dateSent: messages.dateSent })
        .from(messages)
        .where(
          and(
            eq(messages.accountId, sender.accountId),
            sql`${messages.status} = 'QUEUED'`,
            eq(messages.lineNumber, sender.lineNumber),
            isNull(messages.handedOverAt),
            sql`${messages.isOutbound}`,
            after && sql`(${messages.dateSent}, ${messages.id}) > (${after.dateSent}, ${after.id})`,
          ),
        )
        .orderBy(messages.dateSent, messages.id)
        .limit(limit);
    },
    /**
     * Outbound messages on `lines` of `accountIds`, handed over and still QUEUED or SENT, sent since
     * `since`, oldest first from after `after` (messages_account_status_date_idx): a carrier's
     * read-back pages through them.
     */
    async unsettled(
      accountIds: readonly string[],
      lines: readonly string[],
      since: number,
      after: UnsettledCursor,
      limit: number,
    ): Promise<MessageRow[]> {
      if (accountIds.length === 0 || lines.length === 0) return [];
      return db
        .select()
        .from(messages)
        .where(
          and(
            inArray(messages.accountId, [...accountIds]),
            inArray(messages.status, ['QUEUED', 'SENT']),
            gte(messages.dateSent, since),
            or(gt(messages.dateSent, after.dateSent), and(eq(messages.dateSent, after.dateSent), gt(messages.id, after.id))),
            sql`${messages.isOutbound}`,
            isNotNull(messages.handedOverAt),
            inArray(messages.lineNumber, [...lines]),
          ),
        )
        .orderBy(messages.dateSent, messages.id)
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
      const inserted = await statusEventInserted(db).execute({ ...row, sourceEventId: row.sourceEventId ?? null });
      return inserted.length === 1;
    },
    async sourceEventSeen(source: string, sourceEventId: string): Promise<boolean> {
      const [seen] = await sourceEventSeen(db).execute({ source, sourceEventId });
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
