import { and, asc, count, desc, eq, gte, isNull, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { ContactOrderField } from '../../../domain/contact-order.ts';
import type { ContactV2OrderField } from '../../../domain/contact-view-v2.ts';
import { revivedContactFields } from '../../contact-revival.ts';
import type { ContactRow } from '../../rows.ts';
import { contacts, numberPins } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { rowReader } from '../row-reader.ts';
import { eachCall } from './each-call.ts';

/** The SDK's contacts.list: filters and orders of /api/v2/contacts. */
export type ContactV2ListQuery = {
  orderBy: ContactV2OrderField;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
  phone?: string | undefined;
  contactId?: string | undefined;
  createdSince?: number | undefined;
};

/** What an update may change; the identity, conversation summary and dates are the store's. */
export type ContactFieldsUpdate = Partial<
  Pick<ContactRow, 'firstName' | 'lastName' | 'companyName' | 'assignedToEmail' | 'tags' | 'customVariables' | 'optedOut'>
>;

export type ContactWithLine = ContactRow & { sendblueNumber: string };
export type ContactAndPin = { contact: ContactRow | undefined; pinnedLine: string | undefined };

export type ContactListQuery = {
  orderBy: ContactOrderField;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
};

const orderColumns = {
  last_date: contacts.lastMessageAt,
  firstName: contacts.firstName,
  lastName: contacts.lastName,
  created_at: contacts.createdAt,
} as const;

const v2OrderColumns: Record<ContactV2OrderField, SQLiteColumn> = {
  created_at: contacts.createdAt,
  updated_at: contacts.updatedAt,
  phone: contacts.phone,
  first_name: contacts.firstName,
  last_name: contacts.lastName,
};

export function contactQueries(db: Db) {
  const countLive = (accountId: string): number =>
    db
      .select({ total: count() })
      .from(contacts)
      .where(and(eq(contacts.accountId, accountId), isNull(contacts.deletedAt)))
      .get()?.total ?? 0;
  const byId = db
    .select()
    .from(contacts)
    .where(and(eq(contacts.accountId, sql.placeholder('accountId')), eq(contacts.id, sql.placeholder('id'))))
    .prepare();
  // Every send reads the contact, a send to someone new inserts it, and every message updates its
  // conversation summary: positional statements, without drizzle's mapping of each call.
  const client = db.$client;
  const contact = rowReader(contacts);
  const byPhone = client.prepare(`select ${contact.selectList()} from contacts where account_id = ? and phone = ?`).raw(true);
  const pinFor = client.prepare('select line_number from number_pins where account_id = ? and end_user_number = ?').pluck();
  const insert = client.prepare(`
    insert into contacts (id, account_id, phone, first_name, last_name, company_name, last_message_at, preview_text,
      last_inbound_at, last_outbound_at, assigned_to_email, tags, custom_variables, opted_out, deleted_at, created_at, updated_at)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`);
  // SET reads the row as it was: the preview follows the date only when the message is the newest.
  const summaryUpdate = (lastOfDirection: 'last_outbound_at' | 'last_inbound_at') =>
    client.prepare(`
      update contacts set
        last_message_at = case when coalesce(last_message_at, 0) <= @at then @at else last_message_at end,
        preview_text = case when coalesce(last_message_at, 0) <= @at then @previewText else preview_text end,
        ${lastOfDirection} = max(coalesce(${lastOfDirection}, 0), @at)
      where id = @contactId`);
  const recordOutbound = summaryUpdate('last_outbound_at');
  const recordInbound = summaryUpdate('last_inbound_at');

  function findByPhone(accountId: string, phone: string): ContactRow | undefined {
    const values = byPhone.get(accountId, phone) as unknown[] | undefined;
    return values && contact.read(values);
  }
  /** The number's contact row (deleted ones included) and the line its person is pinned to: what a send reads before writing. */
  function findWithPin(accountId: string, phone: string): ContactAndPin {
    const values = byPhone.get(accountId, phone) as unknown[] | undefined;
    return { contact: values && contact.read(values), pinnedLine: pinFor.get(accountId, phone) as string | undefined };
  }
  return {
    /** False when the account already has a contact with that phone. */
    insert(row: ContactRow): boolean {
      return (
        insert.run(
          row.id,
          row.accountId,
          row.phone,
          row.firstName,
          row.lastName,
          row.companyName,
          row.lastMessageAt,
          row.previewText,
          row.lastInboundAt,
          row.lastOutboundAt,
          row.assignedToEmail,
          JSON.stringify(row.tags),
          JSON.stringify(row.customVariables),
          Number(row.optedOut),
          row.deletedAt,
          row.createdAt,
          row.updatedAt,
        ).changes === 1
      );
    },
    findById(accountId: string, id: string): ContactRow | undefined {
      return byId.get({ accountId, id });
    },
    findByPhone,
    /** findByPhone of each call, in order. */
    findByPhoneMany: eachCall(findByPhone),
    /** The number's contact row (deleted ones included) and the line its person is pinned to: what a send reads before writing. */
    findWithPin,
    /** findWithPin of each call, in order. */
    findWithPinMany: eachCall(findWithPin),
    list(accountId: string, query: ContactListQuery): ContactRow[] {
      const order = query.direction === 'asc' ? asc : desc;
      return db
        .select()
        .from(contacts)
        .where(and(eq(contacts.accountId, accountId), isNull(contacts.deletedAt)))
        .orderBy(order(orderColumns[query.orderBy]), order(contacts.id))
        .limit(query.limit)
        .offset(query.offset)
        .all();
    },
    /** The SDK's listing: live contacts only, each with the line its person is pinned to ('' when none). */
    listV2(accountId: string, query: ContactV2ListQuery): ContactWithLine[] {
      const order = query.direction === 'asc' ? asc : desc;
      const filters = [eq(contacts.accountId, accountId), isNull(contacts.deletedAt)];
      if (query.phone !== undefined) filters.push(eq(contacts.phone, query.phone));
      if (query.contactId !== undefined) filters.push(eq(contacts.id, query.contactId));
      if (query.createdSince !== undefined) filters.push(gte(contacts.createdAt, query.createdSince));
      return db
        .select({ contact: contacts, sendblueNumber: sql<string>`coalesce(${numberPins.lineNumber}, '')` })
        .from(contacts)
        .leftJoin(numberPins, and(eq(numberPins.accountId, contacts.accountId), eq(numberPins.endUserNumber, contacts.phone)))
        .where(and(...filters))
        .orderBy(order(v2OrderColumns[query.orderBy]), order(contacts.id))
        .limit(query.limit)
        .offset(query.offset)
        .all()
        .map((row) => ({ ...row.contact, sendblueNumber: row.sendblueNumber }));
    },
    /** The account's live contacts. */
    countLive,
    /** countLive for a check before adding some (PostgreSQL locks the account's quota; SQLite's write transactions never overlap). */
    countLiveForUpdate: countLive,
    /** Changes the given fields (API writes: rare next to sends, so built per call). */
    update(contactId: string, fields: ContactFieldsUpdate, now: number): void {
      db.update(contacts)
        .set({ ...fields, updatedAt: now })
        .where(eq(contacts.id, contactId))
        .run();
    },
    /** Brings a deleted contact back as a new one (revivedContactFields). */
    revive(contactId: string, now: number): ContactRow {
      const row = db.update(contacts).set(revivedContactFields(now)).where(eq(contacts.id, contactId)).returning().get();
      if (!row) throw new Error(`contact ${contactId} vanished while being revived`);
      return row;
    },
    /** Hides the contact from contact reads; its messages and its pin stay. */
    softDelete(contactId: string, now: number): void {
      db.update(contacts).set({ deletedAt: now, updatedAt: now }).where(eq(contacts.id, contactId)).run();
    },
    /** Moves the conversation summary forward; an older message (arriving late) never overwrites a newer one. */
    recordMessage(contactId: string, at: number, previewText: string, isOutbound: boolean): void {
      (isOutbound ? recordOutbound : recordInbound).run({ contactId, at, previewText });
    },
  };
}
