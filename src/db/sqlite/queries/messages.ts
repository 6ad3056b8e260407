import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import { union, unionAll } from 'drizzle-orm/sqlite-core';
import { jsonString } from '../../../domain/json-text.ts';
import type { MessageStatus } from '../../../domain/status.ts';
import type { AccountFacts } from '../../../domain/views.ts';
import type { MessageRow, StatusEventRow } from '../../rows.ts';
import { groupMembers, groups, messages, statusEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';
import { eachCall } from './each-call.ts';
import { listRecordSql } from './message-json.ts';
import { prepareJsonRows, prepareMessageRows, type SelectQuery } from './message-values.ts';
import { messageWrites } from './message-writes.ts';

export type { MessageInsert, ReportTarget, StatusEventIdentity, StatusEventInsert, StatusUpdate } from './message-writes.ts';

/** Listing by number merges one index search per group up to this many groups. */
const MAX_MERGED_GROUPS = 400;
/** Prepared listing statements kept (one per combination of filters and group count). */
const MAX_CACHED_LISTINGS = 500;

/** An account's line, as the sender of messages awaiting their hand-over. */
export type HandoverSender = { accountId: string; lineNumber: string };
/** A message awaiting its hand-over, and where a page of them stopped. */
export type HandoverPosition = { id: number; handle: string; dateSent: number };

const awaitingHandoverWhere = and(isNull(messages.handedOverAt), eq(messages.isOutbound, true), eq(messages.status, 'QUEUED'));

/** Where a read-back page ends: the last message read, by date sent then id. */
export type UnsettledCursor = { dateSent: number; id: number };

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
  const writes = messageWrites(db);
  const groupsOfNumberSubquery = db
    .select({ groupId: groupMembers.groupId })
    .from(groupMembers)
    .innerJoin(groups, eq(groups.id, groupMembers.groupId))
    .where(and(eq(groupMembers.number, sql.placeholder('number')), eq(groups.accountId, sql.placeholder('accountId'))));
  const groupsOfNumber = groupsOfNumberSubquery.prepare();
  type Listing<Row> = { all(params: Record<string, unknown>): Row[] };
  // Building a listing's SQL costs drizzle more than SQLite takes to run it (several ms for a
  // number in a few groups): one prepared statement per shape (filters present, groups merged, output).
  const listings = new Map<string, Listing<unknown>>();

  function listingStatement<Row>(output: 'rows' | 'json', filter: MessageListFilter, groupCount: number): Listing<Row> {
    const present = (Object.keys(filter) as (keyof MessageListFilter)[]).filter((key) => filter[key] !== undefined);
    const key = `${output}|${present.sort().join(',')}|${Math.min(groupCount, MAX_MERGED_GROUPS + 1)}`;
    let statement = listings.get(key);
    if (!statement) {
      if (listings.size >= MAX_CACHED_LISTINGS) listings.clear();
      statement = output === 'rows' ? buildRowListing(new Set(present), groupCount) : buildJsonListing(new Set(present), groupCount);
      listings.set(key, statement);
    }
    return statement as Listing<Row>;
  }

  const p = sql.placeholder;
  const newestFirst = [desc(messages.dateSent), desc(messages.id)] as const;

  function conditionsFor(present: Set<keyof MessageListFilter>): SQL[] {
    const conditions: SQL[] = [eq(messages.accountId, p('accountId'))];
    if (present.has('contactId')) conditions.push(eq(messages.contactId, p('contactId')));
    if (present.has('groupId')) conditions.push(eq(messages.groupId, p('groupId')));
    if (present.has('status')) conditions.push(eq(messages.status, unplannedParam(p('status'))));
    if (present.has('isOutbound')) conditions.push(eq(messages.isOutbound, unplannedParam(p('isOutbound'))));
    if (present.has('sentSince')) conditions.push(gte(messages.dateSent, p('sentSince')));
    return conditions;
  }

  /** A number's conversations past this many groups are read by one branch that sorts them all (SQLite allows 500 compound terms). */
  function groupBranchConditions(groupCount: number): SQL[] {
    return groupCount <= MAX_MERGED_GROUPS
      ? Array.from({ length: groupCount }, (_, i) => eq(messages.groupId, p(`group${i}`)))
      : [inArray(messages.groupId, groupsOfNumberSubquery)];
  }

  function buildRowListing(present: Set<keyof MessageListFilter>, groupCount: number): Listing<MessageRow> {
    const conditions = conditionsFor(present);
    const select = (...more: SQL[]) =>
      db
        .select()
        .from(messages)
        .where(and(...conditions, ...more));
    if (!present.has('number')) {
      return prepareMessageRows(
        db,
        select()
          .orderBy(...newestFirst)
          .limit(unplannedParam(p('limit')))
          .offset(p('offset')),
      );
    }
    // A number's messages are its one-to-one conversation plus the groups it belongs to. As one
    // `number = ? OR group_id IN (...)` filter SQLite walks the account's whole date index (or
    // reads and sorts every message of those conversations); as one branch per conversation, each
    // reads its own index in date order, and UNION ALL merges them, reading at most
    // offset + limit rows per branch. Group rows sent by the number itself are in the first
    // branch, so the others skip them.
    const otherMember = ne(messages.number, p('number'));
    const groupBranches = groupBranchConditions(groupCount).map((condition) => select(condition, otherMember));
    const [first, second, ...others] = [select(eq(messages.number, p('number'))), ...groupBranches];
    const merged = second === undefined ? first! : unionAll(first!, second, ...others);
    return prepareMessageRows(
      db,
      merged
        .orderBy(...newestFirst)
        .limit(unplannedParam(p('limit')))
        .offset(p('offset')),
    );
  }

  /** The page as one record of JSON text per message (listRecordSql), the account's email bound as `email`. */
  function buildJsonListing(present: Set<keyof MessageListFilter>, groupCount: number): Listing<string> {
    const conditions = conditionsFor(present);
    const paged = <Q extends { limit(n: unknown): { offset(n: unknown): unknown } }>(query: Q) =>
      query.limit(unplannedParam(p('limit'))).offset(p('offset')) as SelectQuery;
    if (!present.has('number')) {
      const record = sql.raw(listRecordSql('"messages"'));
      return prepareJsonRows(
        db,
        paged(
          db
            .select({ json: record })
            .from(messages)
            .where(and(...conditions))
            .orderBy(...newestFirst),
        ),
      );
    }
    // As for rows, one branch per conversation, but each reads only its index (the id and date),
    // and UNION drops the group rows the number sent itself, which the first branch has too: the
    // table is read for the page's rows alone.
    const keys = (...more: SQL[]) =>
      db
        .select({ id: messages.id, dateSent: messages.dateSent })
        .from(messages)
        .where(and(...conditions, ...more));
    const [first, second, ...others] = [keys(eq(messages.number, p('number'))), ...groupBranchConditions(groupCount).map((c) => keys(c))];
    const merged = second === undefined ? first! : union(first!, second, ...others);
    const page = paged(merged.orderBy(...newestFirst)).toSQL();
    const query = {
      toSQL: () => ({
        sql: `select ${listRecordSql('m')} from (${page.sql}) as page join "messages" m on m.id = page.id order by page.date_sent desc, page.id desc`,
        params: page.params,
      }),
    };
    return prepareJsonRows(db, query);
  }

  const history = db
    .select()
    .from(statusEvents)
    .where(eq(statusEvents.messageHandle, sql.placeholder('handle')))
    // Ids are random: rowid is what keeps arrival order among events of the same millisecond
    // (an implied SENT and the DELIVERED that implied it share one).
    .orderBy(asc(statusEvents.receivedAt), sql`rowid`)
    .prepare();

  return {
    insert: writes.insert,
    findByHandle(accountId: string, handle: string): MessageRow | undefined {
      return byHandle.get({ accountId, handle });
    },
    /** Any account's message by our handle or the transport's: transports and ingest know no account. */
    findByAnyHandle: writes.findByAnyHandle,
    findByAnyHandleMany: eachCall(writes.findByAnyHandle),
    /** Whether a report's event id was seen, else its message: SQLite runs one write transaction at a time, so there is nothing to lock. */
    findReportTarget: writes.findReportTarget,
    findReportTargetMany: eachCall(writes.findReportTarget),
    /** An inbound STOP: the message that opted its sender out says so (rare, so not prepared). */
    markOptedOut(messageId: number): void {
      db.update(messages).set({ optedOut: true }).where(eq(messages.id, messageId)).run();
    },
    updateStatus: writes.updateStatus,
    /** Records that the transport accepted the message, under its own handle. */
    markHandedOver: writes.markHandedOver,
    markHandedOverMany: eachCall(writes.markHandedOver),
    /**
     * Outbound messages accepted but never handed over (a crash or a transport failure in between),
     * oldest first, from after the message id `afterId`: pages must move on, since a page's messages
     * may still be waiting (retries pending) when the next page is read.
     */
    awaitingHandover(limit: number, afterId = 0): MessageRow[] {
      return db
        .select()
        .from(messages)
        .where(and(isNull(messages.handedOverAt), eq(messages.isOutbound, true), eq(messages.status, 'QUEUED'), gt(messages.id, afterId)))
        .orderBy(asc(messages.id))
        .limit(limit)
        .all();
    },
    /** Each account and line with messages awaiting their hand-over: a resume reads each of them apart, so no backlog goes first. */
    handoverSenders(): HandoverSender[] {
      return db
        .selectDistinct({ accountId: messages.accountId, lineNumber: messages.lineNumber })
        .from(messages)
        .where(awaitingHandoverWhere)
        .all();
    },
    /** One sender's messages awaiting their hand-over in the order they were sent, after `after` (the last of the previous page). */
    awaitingHandoverFrom(sender: HandoverSender, limit: number, after?: Pick<HandoverPosition, 'dateSent' | 'id'>): HandoverPosition[] {
      return db
        .select({ id: messages.id, handle: messages.handle, dateSent: messages.dateSent })
        .from(messages)
        .where(
          and(
            eq(messages.accountId, sender.accountId),
            eq(messages.status, 'QUEUED'),
            eq(messages.lineNumber, sender.lineNumber),
            isNull(messages.handedOverAt),
            eq(messages.isOutbound, true),
            after && sql`(${messages.dateSent}, ${messages.id}) > (${after.dateSent}, ${after.id})`,
          ),
        )
        .orderBy(asc(messages.dateSent), asc(messages.id))
        .limit(limit)
        .all();
    },
    /**
     * Outbound messages on `lines` of `accountIds`, handed over and still QUEUED or SENT, sent since
     * `since`, oldest first from after `after` (messages_account_status_date_idx): a carrier's
     * read-back pages through them.
     */
    unsettled(accountIds: readonly string[], lines: readonly string[], since: number, after: UnsettledCursor, limit: number): MessageRow[] {
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
            eq(messages.isOutbound, true),
            isNotNull(messages.handedOverAt),
            inArray(messages.lineNumber, [...lines]),
          ),
        )
        .orderBy(asc(messages.dateSent), asc(messages.id))
        .limit(limit)
        .all();
    },
    list(accountId: string, filter: MessageListFilter, limit: number, offset: number): MessageRow[] {
      const params: Record<string, unknown> = { accountId, ...filter, limit, offset };
      // Placeholders bypass column mappers: the flag is bound as SQLite stores it.
      if (filter.isOutbound !== undefined) params.isOutbound = Number(filter.isOutbound);
      if (filter.number === undefined) return listingStatement<MessageRow>('rows', filter, 0).all(params);
      const groupIds = groupsOfNumber.all({ accountId, number: filter.number }).map((row) => row.groupId);
      for (const [i, groupId] of groupIds.entries()) params[`group${i}`] = groupId;
      return listingStatement<MessageRow>('rows', filter, groupIds.length).all(params);
    },
    /** GET /accounts/messages: the page's records (listRecordJson), as the text of a JSON array. */
    listJson(accountId: string, filter: MessageListFilter, limit: number, offset: number, account: AccountFacts): string {
      const params: Record<string, unknown> = { accountId, ...filter, limit, offset, email: jsonString(account.email) };
      if (filter.isOutbound !== undefined) params.isOutbound = Number(filter.isOutbound);
      let groupCount = 0;
      if (filter.number !== undefined) {
        const groupIds = groupsOfNumber.all({ accountId, number: filter.number }).map((row) => row.groupId);
        for (const [i, groupId] of groupIds.entries()) params[`group${i}`] = groupId;
        groupCount = groupIds.length;
      }
      return `[${listingStatement<string>('json', filter, groupCount).all(params).join(',')}]`;
    },

    /** False when a unique index says the event is already recorded. */
    insertStatusEvent: writes.insertStatusEvent,
    sourceEventSeen: writes.sourceEventSeen,
    countRepeat: writes.countRepeat,
    history(handle: string): StatusEventRow[] {
      return history.all({ handle });
    },
  };
}
