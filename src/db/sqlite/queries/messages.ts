import { and, asc, desc, eq, gt, gte, inArray, isNull, ne, type SQL, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/sqlite-core';
import type { MessageStatus } from '../../../domain/status.ts';
import type { MessageRow, StatusEventRow } from '../../rows.ts';
import { groupMembers, groups, messages, statusEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';
import { prepareMessageRows } from './message-values.ts';
import { messageWrites } from './message-writes.ts';

export type { MessageInsert, ReportTarget, StatusEventIdentity, StatusEventInsert, StatusUpdate } from './message-writes.ts';

/** Listing by number merges one index search per group up to this many groups (SQLite allows 500 compound terms). */
const MAX_MERGED_GROUPS = 400;
/** Prepared listing statements kept (one per combination of filters and group count). */
const MAX_CACHED_LISTINGS = 500;

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
  type Listing = { all(params: Record<string, unknown>): MessageRow[] };
  // Building a listing's SQL costs drizzle more than SQLite takes to run it (several ms for a
  // number in a few groups): one prepared statement per shape (filters present, groups merged).
  const listings = new Map<string, Listing>();

  function listingStatement(filter: MessageListFilter, groupCount: number): Listing {
    const present = (Object.keys(filter) as (keyof MessageListFilter)[]).filter((key) => filter[key] !== undefined);
    const key = `${present.sort().join(',')}|${Math.min(groupCount, MAX_MERGED_GROUPS + 1)}`;
    let statement = listings.get(key);
    if (!statement) {
      if (listings.size >= MAX_CACHED_LISTINGS) listings.clear();
      statement = buildListing(new Set(present), groupCount);
      listings.set(key, statement);
    }
    return statement;
  }

  function buildListing(present: Set<keyof MessageListFilter>, groupCount: number): Listing {
    const p = sql.placeholder;
    const conditions: SQL[] = [eq(messages.accountId, p('accountId'))];
    if (present.has('contactId')) conditions.push(eq(messages.contactId, p('contactId')));
    if (present.has('groupId')) conditions.push(eq(messages.groupId, p('groupId')));
    if (present.has('status')) conditions.push(eq(messages.status, unplannedParam(p('status'))));
    if (present.has('isOutbound')) conditions.push(eq(messages.isOutbound, unplannedParam(p('isOutbound'))));
    if (present.has('sentSince')) conditions.push(gte(messages.dateSent, p('sentSince')));
    const select = (...more: SQL[]) =>
      db
        .select()
        .from(messages)
        .where(and(...conditions, ...more));
    const newestFirst = [desc(messages.dateSent), desc(messages.id)] as const;
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
    const groupBranches =
      groupCount <= MAX_MERGED_GROUPS
        ? Array.from({ length: groupCount }, (_, i) => select(eq(messages.groupId, p(`group${i}`)), otherMember))
        : // A compound SELECT has at most 500 terms: past that many groups, one branch reads them all and sorts.
          [select(inArray(messages.groupId, groupsOfNumberSubquery), otherMember)];
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
    /** Whether a report's event id was seen, else its message: SQLite runs one write transaction at a time, so there is nothing to lock. */
    findReportTarget: writes.findReportTarget,
    /** An inbound STOP: the message that opted its sender out says so (rare, so not prepared). */
    markOptedOut(messageId: number): void {
      db.update(messages).set({ optedOut: true }).where(eq(messages.id, messageId)).run();
    },
    updateStatus: writes.updateStatus,
    /** Records that the transport accepted the message, under its own handle. */
    markHandedOver: writes.markHandedOver,
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
    list(accountId: string, filter: MessageListFilter, limit: number, offset: number): MessageRow[] {
      const params: Record<string, unknown> = { accountId, ...filter, limit, offset };
      // Placeholders bypass column mappers: the flag is bound as SQLite stores it.
      if (filter.isOutbound !== undefined) params.isOutbound = Number(filter.isOutbound);
      if (filter.number === undefined) return listingStatement(filter, 0).all(params);
      const groupIds = groupsOfNumber.all({ accountId, number: filter.number }).map((row) => row.groupId);
      for (const [i, groupId] of groupIds.entries()) params[`group${i}`] = groupId;
      return listingStatement(filter, groupIds.length).all(params);
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
