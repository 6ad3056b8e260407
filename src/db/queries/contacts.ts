import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { ContactOrderField } from '../../domain/contact-order.ts';
import type { Db } from '../connection.ts';
import { placeholdersFor } from '../placeholders.ts';
import type { ContactRow } from '../rows.ts';
import { contacts } from '../schema.ts';

export type ContactListQuery = {
  orderBy: ContactOrderField;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
};

const CONTACT_COLUMNS = [
  'id',
  'accountId',
  'phone',
  'firstName',
  'lastName',
  'companyName',
  'lastMessageAt',
  'previewText',
  'lastInboundAt',
  'lastOutboundAt',
  'assignedToEmail',
  'tags',
  'customVariables',
  'optedOut',
  'deletedAt',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof ContactRow)[];

const orderColumns = {
  last_date: contacts.lastMessageAt,
  firstName: contacts.firstName,
  lastName: contacts.lastName,
  created_at: contacts.createdAt,
} as const;

export function contactQueries(db: Db) {
  const byPhone = db
    .select()
    .from(contacts)
    .where(and(eq(contacts.accountId, sql.placeholder('accountId')), eq(contacts.phone, sql.placeholder('phone'))))
    .prepare();
  const byId = db
    .select()
    .from(contacts)
    .where(and(eq(contacts.accountId, sql.placeholder('accountId')), eq(contacts.id, sql.placeholder('id'))))
    .prepare();
  // Every send runs these: prepared once instead of built per call.
  const insert = db.insert(contacts).values(placeholdersFor(CONTACT_COLUMNS)).onConflictDoNothing().prepare();
  const at = sql.placeholder('at');
  const newer = sql`coalesce(${contacts.lastMessageAt}, 0) <= ${at}`;
  const summaryUpdate = (direction: { lastOutboundAt: SQL } | { lastInboundAt: SQL }) =>
    db
      .update(contacts)
      .set({
        lastMessageAt: sql`case when ${newer} then ${at} else ${contacts.lastMessageAt} end`,
        previewText: sql`case when ${newer} then ${sql.placeholder('previewText')} else ${contacts.previewText} end`,
        ...direction,
      })
      .where(eq(contacts.id, sql.placeholder('contactId')))
      .prepare();
  const recordOutbound = summaryUpdate({ lastOutboundAt: sql`max(coalesce(${contacts.lastOutboundAt}, 0), ${at})` });
  const recordInbound = summaryUpdate({ lastInboundAt: sql`max(coalesce(${contacts.lastInboundAt}, 0), ${at})` });

  return {
    /** False when the account already has a contact with that phone. */
    insert(row: ContactRow): boolean {
      return insert.run(row).changes === 1;
    },
    findById(accountId: string, id: string): ContactRow | undefined {
      return byId.get({ accountId, id });
    },
    findByPhone(accountId: string, phone: string): ContactRow | undefined {
      return byPhone.get({ accountId, phone });
    },
    list(accountId: string, query: ContactListQuery): ContactRow[] {
      const order = query.direction === 'asc' ? asc : desc;
      return db
        .select()
        .from(contacts)
        .where(eq(contacts.accountId, accountId))
        .orderBy(order(orderColumns[query.orderBy]), order(contacts.id))
        .limit(query.limit)
        .offset(query.offset)
        .all();
    },
    /** Moves the conversation summary forward; an older message (arriving late) never overwrites a newer one. */
    recordMessage(contactId: string, at: number, previewText: string, isOutbound: boolean): void {
      (isOutbound ? recordOutbound : recordInbound).run({ contactId, at, previewText });
    },
  };
}
