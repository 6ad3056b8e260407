import { and, asc, count, desc, eq, getTableColumns, gt, gte, lte, type SQL, sql } from 'drizzle-orm';
import { messageRowJson } from '../../../domain/message-row-view.ts';
import type { AccountFacts } from '../../../domain/views.ts';
import type { MessageRowWithGroupName } from '../../sqlite/queries/message-values.ts';
import { type MessageV2Filter, type MessageV2Order, TOTAL_RECOUNT_MS } from '../../sqlite/queries/messages-v2.ts';
import type { PgDb } from '../db.ts';
import { groupMembers, groups, messages } from '../schema.ts';

/** Totals kept (one per account and filter values). */
const MAX_CACHED_TOTALS = 1_000;

/** Filters on columns a message never changes after it is stored: their totals only grow by new rows. */
const IMMUTABLE: ReadonlySet<keyof MessageV2Filter> = new Set([
  'number',
  'lineNumber',
  'groupId',
  'isOutbound',
  'messageType',
  'sentFrom',
  'sentTo',
]);

function conditionsFor(accountId: string, filter: MessageV2Filter): SQL[] {
  const conditions: SQL[] = [eq(messages.accountId, accountId)];
  if (filter.number !== undefined) conditions.push(eq(messages.number, filter.number));
  if (filter.groupId !== undefined) conditions.push(eq(messages.groupId, filter.groupId));
  if (filter.status !== undefined) conditions.push(eq(messages.status, filter.status));
  if (filter.isOutbound !== undefined) conditions.push(eq(messages.isOutbound, filter.isOutbound));
  if (filter.lineNumber !== undefined) conditions.push(eq(messages.lineNumber, filter.lineNumber));
  if (filter.messageType !== undefined) conditions.push(eq(messages.messageType, filter.messageType));
  if (filter.downgraded !== undefined) conditions.push(sql`coalesce(${messages.wasDowngraded}, false) = ${filter.downgraded}`);
  if (filter.sentFrom !== undefined) conditions.push(gte(messages.dateSent, filter.sentFrom));
  if (filter.sentTo !== undefined) conditions.push(lte(messages.dateSent, filter.sentTo));
  if (filter.updatedFrom !== undefined) conditions.push(gte(messages.dateUpdated, filter.updatedFrom));
  if (filter.updatedTo !== undefined) conditions.push(lte(messages.dateUpdated, filter.updatedTo));
  return conditions;
}

/**
 * The v2 message listing. Each filter is an equality or range on a column that one of the
 * account's listing indexes (account + number / group / status / date) starts with, so the
 * page is an index range read in date order; line and update-time filters ride on that walk.
 * Keep one instance per pool: it holds the totals cache.
 */
export function messageV2Queries(db: PgDb) {
  const totals = new Map<string, { total: number; top: number; countedAt: number }>();

  // The newest id in the same read as the count: later rows are exactly those above it.
  const counted = { n: count(), top: sql<number | null>`(select max(${messages.id}) from ${messages})`.mapWith(Number) };

  async function countWhere(conditions: SQL[]): Promise<{ n: number; top: number | null }> {
    const [row] = await db
      .select(counted)
      .from(messages)
      .where(and(...conditions));
    return { n: row?.n ?? 0, top: row?.top ?? null };
  }

  // The group's name read with each row: a page of group messages would otherwise cost a look-up per row.
  const groupDisplayName = sql<
    string | null
  >`(select ${groups.displayName} from ${groups} where ${groups.id} = ${messages.groupId} and ${groups.accountId} = ${messages.accountId})`;

  /** participantsOf: a group's members (the recipients of a group send), else the end user; the line last. */
  async function participantsOf(message: MessageRowWithGroupName, membersOf: Map<string, string[]>): Promise<string[]> {
    if (message.messageType !== 'group' || message.groupId === null) return [message.number, message.lineNumber];
    if (message.isOutbound) return [...(message.recipients ?? []), message.lineNumber];
    let members = membersOf.get(message.groupId);
    if (members === undefined) {
      const rows = await db
        .select({ number: groupMembers.number })
        .from(groupMembers)
        .where(eq(groupMembers.groupId, message.groupId))
        .orderBy(asc(groupMembers.addedAt), asc(groupMembers.number));
      members = rows.map((row) => row.number);
      membersOf.set(message.groupId, members);
    }
    return [...members, message.lineNumber];
  }

  return {
    /** A page of messages.list: each row's JSON (messageRowJson). */
    async listJson(
      accountId: string,
      filter: MessageV2Filter,
      order: MessageV2Order,
      limit: number,
      offset: number,
      account: AccountFacts,
    ): Promise<string[]> {
      const column = order.by === 'sent' ? messages.dateSent : messages.dateUpdated;
      const direction = order.direction === 'asc' ? asc : desc;
      const rows = await db
        .select({ ...getTableColumns(messages), groupDisplayName })
        .from(messages)
        .where(and(...conditionsFor(accountId, filter)))
        .orderBy(direction(column), direction(messages.id))
        .limit(limit)
        .offset(offset);
      // A group's members are read once however many rows of the page name the group.
      const membersOf = new Map<string, string[]>();
      const page: string[] = [];
      for (const row of rows) {
        const participants = await participantsOf(row, membersOf);
        page.push(messageRowJson(row, account, { groupDisplayName: row.groupDisplayName, participants }));
      }
      return page;
    },
    /**
     * How many messages match. A filter on columns that never change keeps its total and, for
     * TOTAL_RECOUNT_MS, adds only the rows stored since, read by id (the primary key).
     */
    async total(accountId: string, filter: MessageV2Filter, now: number): Promise<number> {
      const conditions = conditionsFor(accountId, filter);
      const present = (Object.keys(filter) as (keyof MessageV2Filter)[]).filter((key) => filter[key] !== undefined);
      if (!present.every((key) => IMMUTABLE.has(key))) return (await countWhere(conditions)).n;
      const key = JSON.stringify({ accountId, ...filter });
      const known = totals.get(key);
      if (known && now - known.countedAt < TOTAL_RECOUNT_MS) {
        const added = await countWhere([gt(messages.id, known.top), ...conditions]);
        known.total += added.n;
        known.top = added.top ?? known.top;
        return known.total;
      }
      const fresh = await countWhere(conditions);
      if (totals.size >= MAX_CACHED_TOTALS) totals.clear();
      totals.set(key, { total: fresh.n, top: fresh.top ?? 0, countedAt: now });
      return fresh.n;
    },
  };
}
