import { type AnyColumn, and, asc, count, desc, gt, type SQL, sql } from 'drizzle-orm';
import { jsonString } from '../../../domain/json-text.ts';
import type { MessageStatus } from '../../../domain/status.ts';
import type { AccountFacts } from '../../../domain/views.ts';
import { messages } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';
import { messageRowSql } from './message-json.ts';
import { prepareJsonRows } from './message-values.ts';

/** The v2 listing's filters, in database terms (the service resolves the API's names to these). */
export type MessageV2Filter = {
  number?: string;
  lineNumber?: string;
  groupId?: string;
  isOutbound?: boolean;
  messageType?: 'message' | 'group';
  status?: MessageStatus;
  downgraded?: boolean;
  sentFrom?: number;
  sentTo?: number;
  updatedFrom?: number;
  updatedTo?: number;
};

export type MessageV2Order = { by: 'sent' | 'updated'; direction: 'asc' | 'desc' };

/** Prepared statements kept (one per combination of filters and order). */
const MAX_CACHED_SHAPES = 200;

/** Totals kept (one per account and filter values). */
const MAX_CACHED_TOTALS = 1_000;
/**
 * How long a total is brought up to date by counting only newer rows before it is counted afresh:
 * rows only disappear by retention, which a total may thus miss for this long.
 */
export const TOTAL_RECOUNT_MS = 60_000;

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

type Counted = { n: number; top: number | null };
type Counter = { get(values: Record<string, unknown>): Counted | undefined };
type Prepared = { rows: { all(values: Record<string, unknown>): string[] }; total: Counter; newer: Counter };

/**
 * The v2 message listing. Each filter is an equality or range on a column that one of the
 * account's listing indexes (account + number / group / status / date) starts with, so the
 * page is an index range read in date order; line and update-time filters ride on that walk.
 */
export function messageV2Queries(db: Db) {
  const statements = new Map<string, Prepared>();
  const totals = new Map<string, { total: number; top: number; countedAt: number }>();

  /** With `rowidOnly`, every column is written `+column` so that SQLite reads only the rowid range `id > ?`. */
  function conditionsFor(present: Set<keyof MessageV2Filter>, rowidOnly = false): SQL[] {
    const p = sql.placeholder;
    const c = (column: AnyColumn) => (rowidOnly ? sql`+${column}` : sql`${column}`);
    const conditions: SQL[] = [sql`${c(messages.accountId)} = ${p('accountId')}`];
    if (present.has('number')) conditions.push(sql`${c(messages.number)} = ${p('number')}`);
    if (present.has('groupId')) conditions.push(sql`${c(messages.groupId)} = ${p('groupId')}`);
    if (present.has('status')) conditions.push(sql`${c(messages.status)} = +${p('status')}`);
    if (present.has('isOutbound')) conditions.push(sql`${c(messages.isOutbound)} = +${p('isOutbound')}`);
    if (present.has('lineNumber')) conditions.push(sql`${messages.lineNumber} = ${p('lineNumber')}`);
    if (present.has('messageType')) conditions.push(sql`${messages.messageType} = ${p('messageType')}`);
    if (present.has('downgraded')) conditions.push(sql`ifnull(${messages.wasDowngraded}, 0) = ${p('downgraded')}`);
    if (present.has('sentFrom')) conditions.push(sql`${c(messages.dateSent)} >= ${p('sentFrom')}`);
    if (present.has('sentTo')) conditions.push(sql`${c(messages.dateSent)} <= ${p('sentTo')}`);
    if (present.has('updatedFrom')) conditions.push(sql`${messages.dateUpdated} >= ${p('updatedFrom')}`);
    if (present.has('updatedTo')) conditions.push(sql`${messages.dateUpdated} <= ${p('updatedTo')}`);
    return conditions;
  }

  function build(present: Set<keyof MessageV2Filter>, order: MessageV2Order): Prepared {
    const where = and(...conditionsFor(present));
    const column = order.by === 'sent' ? messages.dateSent : messages.dateUpdated;
    const direction = order.direction === 'asc' ? asc : desc;
    // SQLite writes each row's JSON, the group's name and members read with it (message-json.ts).
    const page = db
      .select({ json: sql.raw(messageRowSql('"messages"')) })
      .from(messages)
      .where(where)
      .orderBy(direction(column), direction(messages.id))
      .limit(unplannedParam(sql.placeholder('limit')))
      .offset(sql.placeholder('offset'));
    // The newest id in the same read as the count: later rows are exactly those above it.
    const counted = { n: count(), top: sql<number | null>`(select max(${messages.id}) from ${messages})` };
    const total = db.select(counted).from(messages).where(where).prepare();
    const newer = db
      .select(counted)
      .from(messages)
      .where(and(gt(messages.id, sql.placeholder('afterId')), ...conditionsFor(present, true)))
      .prepare();
    return { rows: prepareJsonRows(db, page), total, newer };
  }

  function statementFor(filter: MessageV2Filter, order: MessageV2Order): Prepared {
    const present = (Object.keys(filter) as (keyof MessageV2Filter)[]).filter((key) => filter[key] !== undefined).sort();
    const key = `${present.join(',')}|${order.by}|${order.direction}`;
    let prepared = statements.get(key);
    if (!prepared) {
      if (statements.size >= MAX_CACHED_SHAPES) statements.clear();
      prepared = build(new Set(present), order);
      statements.set(key, prepared);
    }
    return prepared;
  }

  function bindings(accountId: string, filter: MessageV2Filter): Record<string, unknown> {
    const values: Record<string, unknown> = { accountId, ...filter };
    // Placeholders bypass column mappers: flags are bound as SQLite stores them.
    if (filter.isOutbound !== undefined) values.isOutbound = Number(filter.isOutbound);
    if (filter.downgraded !== undefined) values.downgraded = Number(filter.downgraded);
    return values;
  }

  return {
    /** A page of messages.list: each row's JSON (messageRowJson). */
    listJson(
      accountId: string,
      filter: MessageV2Filter,
      order: MessageV2Order,
      limit: number,
      offset: number,
      account: AccountFacts,
    ): string[] {
      const values = { ...bindings(accountId, filter), limit, offset, email: jsonString(account.email), plan: jsonString(account.plan) };
      return statementFor(filter, order).rows.all(values);
    },
    /**
     * How many messages match. Counting a large account's index range costs tens of milliseconds
     * (50 ms at 1M), so a filter on columns that never change keeps its total and, for
     * TOTAL_RECOUNT_MS, adds only the rows stored since, read by rowid.
     */
    total(accountId: string, filter: MessageV2Filter, now: number): number {
      const { total, newer } = statementFor(filter, { by: 'sent', direction: 'desc' });
      const values = bindings(accountId, filter);
      const present = (Object.keys(filter) as (keyof MessageV2Filter)[]).filter((key) => filter[key] !== undefined);
      if (!present.every((key) => IMMUTABLE.has(key))) return total.get(values)?.n ?? 0;
      const key = JSON.stringify(values);
      const known = totals.get(key);
      if (known && now - known.countedAt < TOTAL_RECOUNT_MS) {
        const added = newer.get({ ...values, afterId: known.top });
        known.total += added?.n ?? 0;
        known.top = added?.top ?? known.top;
        return known.total;
      }
      const counted = total.get(values);
      if (totals.size >= MAX_CACHED_TOTALS) totals.clear();
      totals.set(key, { total: counted?.n ?? 0, top: counted?.top ?? 0, countedAt: now });
      return counted?.n ?? 0;
    },
  };
}
