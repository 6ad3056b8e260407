import { fillPlaceholders, getTableColumns } from 'drizzle-orm';
import type { MessageRow } from '../../rows.ts';
import { messages } from '../../schema.ts';
import type { Db } from '../connection.ts';

/**
 * Listing pages read 50 full message rows per request. Rows as objects cost better-sqlite3 (or
 * drizzle's generic mapper) about as much as SQLite takes to find them; read as arrays and mapped
 * by this one function, they cost far less (bench/results/README.md).
 */

/** Drizzle selects a table's columns in declaration order; these are their positions. */
const at = Object.fromEntries(Object.keys(getTableColumns(messages)).map((name, index) => [name, index])) as Record<
  keyof MessageRow,
  number
>;

function flag(value: unknown): boolean | null {
  return value === null ? null : value === 1;
}

export function messageFromValues(v: readonly unknown[]): MessageRow {
  const recipients = v[at.recipients] as string | null;
  return {
    id: v[at.id] as number,
    handle: v[at.handle] as string,
    accountId: v[at.accountId] as string,
    isOutbound: v[at.isOutbound] === 1,
    messageType: v[at.messageType] as MessageRow['messageType'],
    status: v[at.status] as MessageRow['status'],
    errorCode: v[at.errorCode] as number | null,
    errorMessage: v[at.errorMessage] as string | null,
    errorDetail: v[at.errorDetail] as string | null,
    content: v[at.content] as string,
    mediaUrl: v[at.mediaUrl] as string,
    sendStyle: v[at.sendStyle] as string,
    statusCallback: v[at.statusCallback] as string | null,
    lineNumber: v[at.lineNumber] as string,
    number: v[at.number] as string,
    recipients: recipients === null ? null : (JSON.parse(recipients) as string[]),
    contactId: v[at.contactId] as string | null,
    groupId: v[at.groupId] as string | null,
    wasDowngraded: flag(v[at.wasDowngraded]),
    replyToHandle: v[at.replyToHandle] as string | null,
    replyToPartIndex: v[at.replyToPartIndex] as number | null,
    seatId: v[at.seatId] as string | null,
    optedOut: v[at.optedOut] === 1,
    transportHandle: v[at.transportHandle] as string | null,
    handedOverAt: v[at.handedOverAt] as number | null,
    dateSent: v[at.dateSent] as number,
    dateUpdated: v[at.dateUpdated] as number,
  };
}

export type SelectQuery = { toSQL(): { sql: string; params: unknown[] } };

function prepareRows<Row>(db: Db, query: SelectQuery, fromValues: (v: readonly unknown[]) => Row) {
  const { sql: text, params } = query.toSQL();
  const statement = db.$client.prepare(text).raw(true);
  return {
    all(values: Record<string, unknown>): Row[] {
      return (statement.all(fillPlaceholders(params, values)) as unknown[][]).map(fromValues);
    },
  };
}

/**
 * Prepares a drizzle-built select of whole message rows (placeholders by name) to run with
 * better-sqlite3 returning arrays, mapped by messageFromValues.
 */
export function prepareMessageRows(db: Db, query: SelectQuery) {
  return prepareRows(db, query, messageFromValues);
}

/** A message row and the display name of its group (null when it has none). */
export type MessageRowWithGroupName = MessageRow & { groupDisplayName: string | null };

/**
 * Prepares a select of one text column (a record's JSON) whose SQL may also name the account's
 * `:email` and `:plan` (message-json.ts): the drizzle placeholders are bound by position, these by name.
 */
export function prepareJsonRows(db: Db, query: SelectQuery) {
  const { sql: text, params } = query.toSQL();
  const statement = db.$client.prepare(text).pluck(true);
  const named = ['email', 'plan'].filter((name) => text.includes(`:${name}`));
  return {
    all(values: Record<string, unknown>): string[] {
      const bound = Object.fromEntries(named.map((name) => [name, values[name]]));
      return statement.all(...fillPlaceholders(params, values), bound) as string[];
    },
  };
}
