import { and, asc, count, desc, eq, gte, lte, type SQL, sql } from 'drizzle-orm';
import type { MessageStatus } from '../../domain/status.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';
import type { MessageRow } from '../rows.ts';
import { messages } from '../schema.ts';
import { prepareMessageRows } from './message-values.ts';

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

type Prepared = {
  rows: { all(values: Record<string, unknown>): MessageRow[] };
  total: { get(values: Record<string, unknown>): { n: number } | undefined };
};

/**
 * The v2 message listing. Each filter is an equality or range on a column that one of the
 * account's listing indexes (account + number / group / status / date) starts with, so the
 * page is an index range read in date order; line and update-time filters ride on that walk.
 */
export function messageV2Queries(db: Db) {
  const statements = new Map<string, Prepared>();

  function conditionsFor(present: Set<keyof MessageV2Filter>): SQL[] {
    const p = sql.placeholder;
    const conditions: SQL[] = [eq(messages.accountId, p('accountId'))];
    if (present.has('number')) conditions.push(eq(messages.number, p('number')));
    if (present.has('groupId')) conditions.push(eq(messages.groupId, p('groupId')));
    if (present.has('status')) conditions.push(eq(messages.status, unplannedParam(p('status'))));
    if (present.has('isOutbound')) conditions.push(eq(messages.isOutbound, unplannedParam(p('isOutbound'))));
    if (present.has('lineNumber')) conditions.push(eq(messages.lineNumber, p('lineNumber')));
    if (present.has('messageType')) conditions.push(eq(messages.messageType, p('messageType')));
    if (present.has('downgraded')) conditions.push(sql`ifnull(${messages.wasDowngraded}, 0) = ${p('downgraded')}`);
    if (present.has('sentFrom')) conditions.push(gte(messages.dateSent, p('sentFrom')));
    if (present.has('sentTo')) conditions.push(lte(messages.dateSent, p('sentTo')));
    if (present.has('updatedFrom')) conditions.push(gte(messages.dateUpdated, p('updatedFrom')));
    if (present.has('updatedTo')) conditions.push(lte(messages.dateUpdated, p('updatedTo')));
    return conditions;
  }

  function build(present: Set<keyof MessageV2Filter>, order: MessageV2Order): Prepared {
    const where = and(...conditionsFor(present));
    const column = order.by === 'sent' ? messages.dateSent : messages.dateUpdated;
    const direction = order.direction === 'asc' ? asc : desc;
    const page = db
      .select()
      .from(messages)
      .where(where)
      .orderBy(direction(column), direction(messages.id))
      .limit(unplannedParam(sql.placeholder('limit')))
      .offset(sql.placeholder('offset'));
    const total = db.select({ n: count() }).from(messages).where(where).prepare();
    return { rows: prepareMessageRows(db, page), total };
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
    list(accountId: string, filter: MessageV2Filter, order: MessageV2Order, limit: number, offset: number): MessageRow[] {
      return statementFor(filter, order).rows.all({ ...bindings(accountId, filter), limit, offset });
    },
    count(accountId: string, filter: MessageV2Filter): number {
      return statementFor(filter, { by: 'sent', direction: 'desc' }).total.get(bindings(accountId, filter))?.n ?? 0;
    },
  };
}
