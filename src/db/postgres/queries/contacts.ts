import { and, asc, count, desc, eq, getTableColumns, gte, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgInsertValue } from 'drizzle-orm/pg-core';
import type { ContactV2OrderField } from '../../../domain/contact-view-v2.ts';
import { revivedContactFields } from '../../contact-revival.ts';
import type { ContactRow } from '../../rows.ts';
import type {
  ContactAndPin,
  ContactFieldsUpdate,
  ContactListQuery,
  ContactV2ListQuery,
  ContactWithLine,
} from '../../sqlite/queries/contacts.ts';
import type { PgDb } from '../db.ts';
import { lockQuota } from '../quota-lock.ts';
import { contacts, numberPins } from '../schema.ts';
import { preparedOnce } from './prepared-once.ts';

const p = sql.placeholder;

/** Every send asks: the number's contact row (deleted ones included) and the line its person is pinned to. */
const withPin = preparedOnce('contact_with_pin', (db) =>
  db
    .select({ contact: contacts, pinnedLine: numberPins.lineNumber })
    .from(sql`(select 1) as one`)
    .leftJoin(contacts, and(eq(contacts.accountId, p('accountId')), eq(contacts.phone, p('phone'))))
    .leftJoin(numberPins, and(eq(numberPins.accountId, p('accountId')), eq(numberPins.endUserNumber, p('phone')))),
);

/** withPin for many numbers at once, a row per number in the order given (duplicates repeated). */
const withPins = preparedOnce('contacts_with_pins', (db) =>
  db
    .select({ contact: contacts, pinnedLine: numberPins.lineNumber })
    .from(sql`unnest(${p('accountIds')}::text[], ${p('phones')}::text[]) with ordinality as asked (account_id, phone, ord)`)
    .leftJoin(contacts, and(eq(contacts.accountId, sql`asked.account_id`), eq(contacts.phone, sql`asked.phone`)))
    .leftJoin(numberPins, and(eq(numberPins.accountId, sql`asked.account_id`), eq(numberPins.endUserNumber, sql`asked.phone`)))
    .orderBy(sql`asked.ord`),
);

/** A whole row, each column a placeholder of its name; a contact already there for the phone is kept. */
const contactInserted = preparedOnce('contact_inserted', (db) =>
  db
    .insert(contacts)
    .values(
      Object.fromEntries(Object.keys(getTableColumns(contacts)).map((column) => [column, p(column)])) as PgInsertValue<typeof contacts>,
    )
    .onConflictDoNothing()
    .returning({ id: contacts.id }),
);

const byPhone = preparedOnce('contact_by_phone', (db) =>
  db
    .select()
    .from(contacts)
    .where(and(eq(contacts.accountId, p('accountId')), eq(contacts.phone, p('phone')))),
);

const byPhones = preparedOnce('contacts_by_phones', (db) =>
  db
    .select({ contact: contacts })
    .from(sql`unnest(${p('accountIds')}::text[], ${p('phones')}::text[]) with ordinality as asked (account_id, phone, ord)`)
    .leftJoin(contacts, and(eq(contacts.accountId, sql`asked.account_id`), eq(contacts.phone, sql`asked.phone`)))
    .orderBy(sql`asked.ord`),
);

/** The calls' accounts and phones, column by column, for withPins and byPhones. */
const accountsAndPhones = (calls: readonly [accountId: string, phone: string][]) => ({
  accountIds: calls.map(([accountId]) => accountId),
  phones: calls.map(([, phone]) => phone),
});

/** An outbound or an inbound message moves the conversation summary: one statement each. */
const messageRecorded = (isOutbound: boolean) =>
  preparedOnce(isOutbound ? 'contact_outbound_recorded' : 'contact_inbound_recorded', (db) => {
    const at = sql`${p('at')}::bigint`;
    const newer = sql`coalesce(${contacts.lastMessageAt}, 0) <= ${at}`;
    const directionAt = isOutbound ? contacts.lastOutboundAt : contacts.lastInboundAt;
    const movedDirectionAt = sql`greatest(coalesce(${directionAt}, 0), ${at})`;
    return db
      .update(contacts)
      .set({
        lastMessageAt: sql`case when ${newer} then ${at} else ${contacts.lastMessageAt} end`,
        previewText: sql`case when ${newer} then ${p('previewText')}::text else ${contacts.previewText} end`,
        ...(isOutbound ? { lastOutboundAt: movedDirectionAt } : { lastInboundAt: movedDirectionAt }),
      })
      .where(eq(contacts.id, p('contactId')));
  });
const outboundRecorded = messageRecorded(true);
const inboundRecorded = messageRecorded(false);

const pinOf = (row: { contact: ContactRow | null; pinnedLine: string | null } | undefined): ContactAndPin => ({
  contact: row?.contact ?? undefined,
  pinnedLine: row?.pinnedLine ?? undefined,
});

const orderColumns = {
  last_date: contacts.lastMessageAt,
  firstName: contacts.firstName,
  lastName: contacts.lastName,
  created_at: contacts.createdAt,
} as const;

const v2OrderColumns: Record<ContactV2OrderField, PgColumn> = {
  created_at: contacts.createdAt,
  updated_at: contacts.updatedAt,
  phone: contacts.phone,
  first_name: contacts.firstName,
  last_name: contacts.lastName,
};

/**
 * The v1 listing's order. SQLite sorts NULL first ascending and last descending, PostgreSQL the
 * other way round: by last message date (the one nullable order), contacts never written to keep
 * SQLite's place.
 */
function v1Order(field: ContactListQuery['orderBy'], direction: 'asc' | 'desc'): SQL {
  const column = orderColumns[field];
  if (field !== 'last_date') return direction === 'asc' ? asc(column) : desc(column);
  return direction === 'asc' ? sql`${column} asc nulls first` : sql`${column} desc nulls last`;
}

export function contactQueries(db: PgDb) {
  const countLive = async (accountId: string): Promise<number> => {
    const [row] = await db
      .select({ total: count() })
      .from(contacts)
      .where(and(eq(contacts.accountId, accountId), isNull(contacts.deletedAt)));
    return row?.total ?? 0;
  };
  return {
    /** False when the account already has a contact with that phone. */
    async insert(row: ContactRow): Promise<boolean> {
      const inserted = await contactInserted(db).execute(row);
      return inserted.length === 1;
    },
    async findById(accountId: string, id: string): Promise<ContactRow | undefined> {
      const [row] = await db
        .select()
        .from(contacts)
        .where(and(eq(contacts.accountId, accountId), eq(contacts.id, id)));
      return row;
    },
    async findByPhone(accountId: string, phone: string): Promise<ContactRow | undefined> {
      const [row] = await byPhone(db).execute({ accountId, phone });
      return row;
    },
    /** findByPhone of each call, in one statement. */
    async findByPhoneMany(calls: readonly [accountId: string, phone: string][]): Promise<(ContactRow | undefined)[]> {
      if (calls.length === 0) return [];
      const rows = await byPhones(db).execute(accountsAndPhones(calls));
      return rows.map((row) => row.contact ?? undefined);
    },
    /** The number's contact row (deleted ones included) and the line its person is pinned to, in one round trip. */
    async findWithPin(accountId: string, phone: string): Promise<ContactAndPin> {
      const [row] = await withPin(db).execute({ accountId, phone });
      return pinOf(row);
    },
    /** findWithPin of each call, in one statement. */
    async findWithPinMany(calls: readonly [accountId: string, phone: string][]): Promise<ContactAndPin[]> {
      if (calls.length === 0) return [];
      const rows = await withPins(db).execute(accountsAndPhones(calls));
      return rows.map(pinOf);
    },
    async list(accountId: string, query: ContactListQuery): Promise<ContactRow[]> {
      const order = query.direction === 'asc' ? asc : desc;
      return db
        .select()
        .from(contacts)
        .where(and(eq(contacts.accountId, accountId), isNull(contacts.deletedAt)))
        .orderBy(v1Order(query.orderBy, query.direction), order(contacts.id))
        .limit(query.limit)
        .offset(query.offset);
    },
    /** The SDK's listing: live contacts only, each with the line its person is pinned to ('' when none). */
    async listV2(accountId: string, query: ContactV2ListQuery): Promise<ContactWithLine[]> {
      const order = query.direction === 'asc' ? asc : desc;
      const filters = [eq(contacts.accountId, accountId), isNull(contacts.deletedAt)];
      if (query.phone !== undefined) filters.push(eq(contacts.phone, query.phone));
      if (query.contactId !== undefined) filters.push(eq(contacts.id, query.contactId));
      if (query.createdSince !== undefined) filters.push(gte(contacts.createdAt, query.createdSince));
      const rows = await db
        .select({ contact: contacts, sendblueNumber: sql<string>`coalesce(${numberPins.lineNumber}, '')` })
        .from(contacts)
        .leftJoin(numberPins, and(eq(numberPins.accountId, contacts.accountId), eq(numberPins.endUserNumber, contacts.phone)))
        .where(and(...filters))
        .orderBy(order(v2OrderColumns[query.orderBy]), order(contacts.id))
        .limit(query.limit)
        .offset(query.offset);
      return rows.map((row) => ({ ...row.contact, sendblueNumber: row.sendblueNumber }));
    },
    /** The account's live contacts. */
    countLive,
    /** countLive under the account's contacts quota lock, held until the transaction ends. */
    async countLiveForUpdate(accountId: string): Promise<number> {
      await lockQuota(db, 'contacts', accountId);
      return countLive(accountId);
    },
    /** Changes the given fields. */
    async update(contactId: string, fields: ContactFieldsUpdate, now: number): Promise<void> {
      await db
        .update(contacts)
        .set({ ...fields, updatedAt: now })
        .where(eq(contacts.id, contactId));
    },
    /** Brings a deleted contact back as a new one (revivedContactFields). */
    async revive(contactId: string, now: number): Promise<ContactRow> {
      const [row] = await db.update(contacts).set(revivedContactFields(now)).where(eq(contacts.id, contactId)).returning();
      if (!row) throw new Error(`contact ${contactId} vanished while being revived`);
      return row;
    },
    /** Hides the contact from contact reads; its messages and its pin stay. */
    async softDelete(contactId: string, now: number): Promise<void> {
      await db.update(contacts).set({ deletedAt: now, updatedAt: now }).where(eq(contacts.id, contactId));
    },
    /** Moves the conversation summary forward; an older message (arriving late) never overwrites a newer one. */
    async recordMessage(contactId: string, at: number, previewText: string, isOutbound: boolean): Promise<void> {
      await (isOutbound ? outboundRecorded : inboundRecorded)(db).execute({ contactId, at, previewText });
    },
  };
}
