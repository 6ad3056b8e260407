import { and, asc, count, desc, eq, getTableColumns, gt, gte, lte, type SQL, sql } from 'drizzle-orm';
import { messageRowJson } from '../../../domain/message-row-view.ts';
import type { AccountFacts } from '../../../domain/views.ts';
import type { MessageRowWithGroupName } from '../../sqlite/queries/message-values.ts';
import { type MessageV2Filter, type MessageV2Order, TOTAL_RECOUNT_MS } from '../../sqlite/queries/messages-v2.ts';
import type { PgDb } from '../db.ts';
import { groups, messages } from '../schema.ts';
import { plannedPerCall } from './planned-per-call.ts';
import { withRowMapper } from './row-mapper.ts';

/** Totals kept (one per account and filter values). */
const MAX_CACHED_TOTALS = 1_000;
/** Prepared listings kept (one per combination of filters and order). */
const MAX_CACHED_LISTINGS = 200;

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

/** The conditions of a filter's shape, each value a placeholder of a prepared statement named after the filter's key. */
function conditionsFor(present: ReadonlySet<keyof MessageV2Filter>): SQL[] {
  const value = (key: keyof MessageV2Filter | 'accountId') => sql.placeholder(key) as never;
  const conditions: SQL[] = [eq(messages.accountId, value('accountId'))];
  if (present.has('number')) conditions.push(eq(messages.number, value('number')));
  if (present.has('groupId')) conditions.push(eq(messages.groupId, value('groupId')));
  if (present.has('status')) conditions.push(eq(messages.status, value('status')));
  if (present.has('isOutbound')) conditions.push(eq(messages.isOutbound, value('isOutbound')));
  if (present.has('lineNumber')) conditions.push(eq(messages.lineNumber, value('lineNumber')));
  if (present.has('messageType')) conditions.push(eq(messages.messageType, value('messageType')));
  if (present.has('downgraded')) conditions.push(sql`coalesce(${messages.wasDowngraded}, false) = ${value('downgraded')}`);
  if (present.has('sentFrom')) conditions.push(gte(messages.dateSent, value('sentFrom')));
  if (present.has('sentTo')) conditions.push(lte(messages.dateSent, value('sentTo')));
  if (present.has('updatedFrom')) conditions.push(gte(messages.dateUpdated, value('updatedFrom')));
  if (present.has('updatedTo')) conditions.push(lte(messages.dateUpdated, value('updatedTo')));
  return conditions;
}

const presentIn = (filter: MessageV2Filter) =>
  new Set((Object.keys(filter) as (keyof MessageV2Filter)[]).filter((key) => filter[key] !== undefined));

/**
 * The v2 message listing. Each filter is an equality or range on a column that one of the
 * account's listing indexes (account + number / group / status / date) starts with, so the
 * page is an index range read in date order; line and update-time filters ride on that walk.
 * Keep one instance per pool: it holds the totals cache.
 */
export function messageV2Queries(db: PgDb) {
  const totals = new Map<string, { total: number; top: number; countedAt: number }>();
  /** Fresh counts under way, by the key of their total. */
  const freshCounts = new Map<string, Promise<{ n: number; top: number | null }>>();

  // The newest id in the same read as the count: later rows are exactly those above it.
  const counted = { n: count(), top: sql<number | null>`(select max(${messages.id}) from ${messages})`.mapWith(Number) };

  /** The count of a filter's shape, of all its rows or (`sinceTop`) of those above the id `top`, built once. */
  const prepareCount = (present: ReadonlySet<keyof MessageV2Filter>, sinceTop: boolean) =>
    plannedPerCall(
      db
        .select(counted)
        .from(messages)
        .where(and(...(sinceTop ? [gt(messages.id, sql.placeholder('top'))] : []), ...conditionsFor(present)))
        .prepare('message_v2_count'),
    );
  const counts = new Map<string, ReturnType<typeof prepareCount>>();

  async function countWhere(
    present: ReadonlySet<keyof MessageV2Filter>,
    values: MessageV2Filter & { accountId: string; top?: number },
  ): Promise<{ n: number; top: number | null }> {
    const sinceTop = values.top !== undefined;
    const key = `${[...present].sort().join(',')} ${sinceTop}`;
    let statement = counts.get(key);
    if (statement === undefined) {
      if (counts.size >= MAX_CACHED_LISTINGS) counts.clear();
      statement = prepareCount(present, sinceTop);
      counts.set(key, statement);
    }
    const [row] = await statement.execute(values);
    return { n: row?.n ?? 0, top: row?.top ?? null };
  }

  // The group's name read with each row: a page of group messages would otherwise cost a look-up per row.
  // The case spares the look-up for rows of no group, most of a page.
  const groupDisplayName = sql<
    string | null
  >`case when ${messages.groupId} is null then null else (select ${groups.displayName} from ${groups} where ${groups.id} = ${messages.groupId} and ${groups.accountId} = ${messages.accountId}) end`;
  // An inbound group message's participants are the group's members, read with the row: one round trip a
  // page. Written out: drizzle leaves the columns of a one-table select unqualified, which in the
  // subquery would name group_members' own group_id.
  const groupMemberNumbers = sql<
    string[] | null
  >`case when messages.message_type = 'group' and messages.group_id is not null and not messages.is_outbound then array(select gm.number from group_members gm where gm.group_id = messages.group_id order by gm.added_at, gm.number) end`;

  /** participantsOf: a group's members (the recipients of a group send), else the end user; the line last. */
  function participantsOf(message: MessageRowWithGroupName & { groupMemberNumbers: string[] | null }): string[] {
    if (message.messageType !== 'group' || message.groupId === null) return [message.number, message.lineNumber];
    if (message.isOutbound) return [...(message.recipients ?? []), message.lineNumber];
    return [...(message.groupMemberNumbers ?? []), message.lineNumber];
  }

  /** The statement of a listing's shape, its values as placeholders named after the filter's keys. */
  function prepareListing(present: ReadonlySet<keyof MessageV2Filter>, order: MessageV2Order) {
    const column = order.by === 'sent' ? messages.dateSent : messages.dateUpdated;
    const direction = order.direction === 'asc' ? asc : desc;
    return withRowMapper(
      db
        .select({ ...getTableColumns(messages), groupDisplayName, groupMemberNumbers })
        .from(messages)
        .where(and(...conditionsFor(present)))
        .orderBy(direction(column), direction(messages.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare('message_v2_rows'),
    );
  }
  const listings = new Map<string, ReturnType<typeof prepareListing>>();

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
      const present = presentIn(filter);
      const key = `${[...present].sort().join(',')} ${order.by} ${order.direction}`;
      let listing = listings.get(key);
      if (listing === undefined) {
        if (listings.size >= MAX_CACHED_LISTINGS) listings.clear();
        listing = prepareListing(present, order);
        listings.set(key, listing);
      }
      const rows = await listing.execute({ ...filter, accountId, limit, offset });
      return rows.map((row) => messageRowJson(row, account, { groupDisplayName: row.groupDisplayName, participants: participantsOf(row) }));
    },
    /**
     * How many messages match. A filter on columns that never change keeps its total and, for
     * TOTAL_RECOUNT_MS, adds only the rows stored since, read by id (the primary key). Requests
     * at once share one fresh count, and each kept total is replaced whole (the total and the id it
     * counts up to, read together), never added to: requests counting the same new rows at once
     * would each add them.
     */
    async total(accountId: string, filter: MessageV2Filter, now: number): Promise<number> {
      const present = presentIn(filter);
      const values = { ...filter, accountId };
      if (![...present].every((key) => IMMUTABLE.has(key))) return (await countWhere(present, values)).n;
      const key = JSON.stringify({ accountId, ...filter });
      const known = totals.get(key);
      if (known && now - known.countedAt < TOTAL_RECOUNT_MS) {
        const added = await countWhere(present, { ...values, top: known.top });
        const total = known.total + added.n;
        const top = added.top ?? known.top;
        const latest = totals.get(key);
        if (latest === undefined || top > latest.top) totals.set(key, { total, top, countedAt: known.countedAt });
        return total;
      }
      let counting = freshCounts.get(key);
      if (counting === undefined) {
        counting = countWhere(present, values).finally(() => freshCounts.delete(key));
        freshCounts.set(key, counting);
      }
      const fresh = await counting;
      if (totals.size >= MAX_CACHED_TOTALS) totals.clear();
      totals.set(key, { total: fresh.n, top: fresh.top ?? 0, countedAt: now });
      return fresh.n;
    },
  };
}
