import { and, asc, count, desc, eq, gt, gte, lte, type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { AccountFacts } from '../../../domain/views.ts';
import { type MessageV2Filter, type MessageV2Order, TOTAL_RECOUNT_MS } from '../../sqlite/queries/messages-v2.ts';
import type { PgDb } from '../db.ts';
import { groups, messages } from '../schema.ts';
import { accountJson, groupMembersSql, messageRowSql } from './message-json.ts';

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

/** A filter's keys and the account's, each a value or a placeholder of a prepared statement. */
type Value = (key: keyof MessageV2Filter | 'accountId') => unknown;

function conditionsFor(present: ReadonlySet<keyof MessageV2Filter>, given: Value): SQL[] {
  const value = (key: keyof MessageV2Filter | 'accountId') => given(key) as never;
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

/** The dialect of openPostgres's drizzle: the listing's text is written once per shape. */
const dialect = new PgDialect({ casing: 'snake_case' });

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

  async function countWhere(conditions: SQL[]): Promise<{ n: number; top: number | null }> {
    const [row] = await db
      .select(counted)
      .from(messages)
      .where(and(...conditions));
    return { n: row?.n ?? 0, top: row?.top ?? null };
  }

  /** The statement of a listing's shape, its values as placeholders named after the filter's keys. */
  function prepareListing(present: ReadonlySet<keyof MessageV2Filter>, order: MessageV2Order) {
    const column = order.by === 'sent' ? messages.dateSent : messages.dateUpdated;
    const direction = order.direction === 'asc' ? asc : desc;
    const page = db
      .select()
      .from(messages)
      .where(and(...conditionsFor(present, sql.placeholder)))
      .orderBy(direction(column), direction(messages.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'));
    const ordered = sql.raw(`"m"."${order.by === 'sent' ? 'date_sent' : 'date_updated'}" ${order.direction}, "m"."id" ${order.direction}`);
    // The group's name and, for a message a member sent, its members, read for the page's rows alone.
    const query = sql`
      select ${messageRowSql('"m"', '"g"')} as json
      from (${page}) as "m"
      left join lateral (
        select g.display_name, case when not "m"."is_outbound" then ${sql.raw(groupMembersSql('g'))} end as members
        from ${groups} g where g.id = "m"."group_id" and g.account_id = "m"."account_id"
      ) as "g" on true
      order by ${ordered}`;
    return db._.session.prepareQuery<{ execute: { json: string }[] } & PreparedQueryConfig>(
      dialect.sqlToQuery(query),
      undefined,
      undefined,
      false,
    );
  }
  const listings = new Map<string, ReturnType<typeof prepareListing>>();

  return {
    /** A page of messages.list: each row's JSON (messageRowSql). */
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
      const records = await listing.execute({ ...filter, accountId, limit, offset, ...accountJson(account) });
      return records.map((record) => record.json);
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
      const conditions = conditionsFor(present, (key) => (key === 'accountId' ? accountId : filter[key]));
      if (![...present].every((key) => IMMUTABLE.has(key))) return (await countWhere(conditions)).n;
      const key = JSON.stringify({ accountId, ...filter });
      const known = totals.get(key);
      if (known && now - known.countedAt < TOTAL_RECOUNT_MS) {
        const added = await countWhere([gt(messages.id, known.top), ...conditions]);
        const total = known.total + added.n;
        const top = added.top ?? known.top;
        const latest = totals.get(key);
        if (latest === undefined || top > latest.top) totals.set(key, { total, top, countedAt: known.countedAt });
        return total;
      }
      let counting = freshCounts.get(key);
      if (counting === undefined) {
        counting = countWhere(conditions).finally(() => freshCounts.delete(key));
        freshCounts.set(key, counting);
      }
      const fresh = await counting;
      if (totals.size >= MAX_CACHED_TOTALS) totals.clear();
      totals.set(key, { total: fresh.n, top: fresh.top ?? 0, countedAt: now });
      return fresh.n;
    },
  };
}
