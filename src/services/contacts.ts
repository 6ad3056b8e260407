import type { ContactListQuery } from '../db/queries/contacts.ts';
import type { AccountRow, ContactRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { toContactData, toContactView } from '../domain/views.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { timeOrderedUuid } from './ids.ts';

export type CreateContactInput = {
  firstName: string;
  lastName: string;
  /** Already normalized to E.164. */
  phone: string;
  companyName?: string | undefined;
};

function newContactRow(accountId: string, input: CreateContactInput, now: number): ContactRow {
  return {
    id: timeOrderedUuid(),
    accountId,
    phone: input.phone,
    firstName: input.firstName,
    lastName: input.lastName,
    companyName: input.companyName ?? '',
    lastMessageAt: null,
    previewText: '',
    lastInboundAt: null,
    lastOutboundAt: null,
    assignedToEmail: '',
    tags: [],
    customVariables: {},
    optedOut: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

export function createContact(deps: ServiceDeps, account: AccountRow, input: CreateContactInput) {
  const row = newContactRow(account.id, input, deps.clock.now());
  if (!deps.store.contacts.insert(row)) throw new AppError(ErrorCode.conflict, 'Contact already exists');
  return { status: 'OK' as const, contact: row.id, contactData: toContactData(row, account.email) };
}

/**
 * The contact for this number, created with empty names when the account has never been in touch
 * with it: messaging someone makes them a contact. Call inside the sending transaction.
 */
export function ensureContact(deps: ServiceDeps, accountId: string, phone: string, now: number): ContactRow {
  const existing = deps.store.contacts.findByPhone(accountId, phone);
  if (existing) return existing;
  const row = newContactRow(accountId, { firstName: '', lastName: '', phone }, now);
  deps.store.contacts.insert(row);
  return row;
}

export function getContact(deps: ServiceDeps, account: AccountRow, contactId: string) {
  const row = deps.store.contacts.findById(account.id, contactId);
  if (!row) throw new AppError(ErrorCode.notFound, 'Contact not found');
  return toContactView(row, account.email, deps.displayTimeZone);
}

export function listContacts(deps: ServiceDeps, account: AccountRow, query: ContactListQuery) {
  return deps.store.contacts.list(account.id, query).map((row) => toContactView(row, account.email, deps.displayTimeZone));
}
