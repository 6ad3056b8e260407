/**
 * The SDK's contacts calls (/api/v2/contacts). Contacts are keyed by phone number; a deleted
 * contact is hidden from every read until the number is created again. In relay mode the writes
 * go to the provider first and are recorded here only once it accepted them; reads are answered
 * from local records, since several tenants share one provider account.
 */
import type { ContactV2ListQuery } from '../db/queries/contacts.ts';
import type { AccountRow, ContactRow } from '../db/rows.ts';
import { type ContactV2View, toContactV2 } from '../domain/contact-view-v2.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkPhoneNumber } from '../domain/phone.ts';
import { AppError } from './app-error.ts';
import { applyContactFields, type ContactFields, contactV2View, findLiveContact, requireContactLine, upsertContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import type { ProviderAnswer, ProviderRequest } from './provider.ts';

export type BulkContactInput = { phone: string; fields: ContactFields };

/** A write's local effect, in one transaction; the outbox and live views hear of it after the commit. */
function commitContactWrite<T>(deps: ServiceDeps, account: AccountRow, write: (now: number) => T): T {
  const result = deps.store.transaction(() => write(deps.clock.now()));
  deps.notify.outboxWritten();
  deps.notify.accountActivity?.(account.id);
  return result;
}

/**
 * Relay mode: `refuse` decides from the tenant's own records before the provider (shared by every
 * tenant) is asked; the call is forwarded, and what it establishes is recorded only when the
 * provider accepted it. A refusal goes back as the provider sent it, a success is answered from our
 * records (our contact ids). Sandbox mode: `refuse` and the write run in one transaction, which is the answer.
 */
async function forwardThenRecord<T>(
  deps: ServiceDeps,
  account: AccountRow,
  request: ProviderRequest,
  record: (now: number) => T,
  refuse: () => void = () => {},
): Promise<T | ProviderAnswer> {
  if (!deps.provider) {
    return commitContactWrite(deps, account, (now) => {
      refuse();
      return record(now);
    });
  }
  refuse();
  const answer = await deps.provider.call(request);
  return answer.ok ? commitContactWrite(deps, account, record) : answer;
}

function requireLiveContact(deps: ServiceDeps, account: AccountRow, phone: string): ContactRow {
  const contact = findLiveContact(deps, account.id, phone);
  if (!contact) throw new AppError(ErrorCode.notFound, `No contact with number ${phone}`);
  return contact;
}

const contactPath = (phone: string) => `/api/v2/contacts/${phone}`;

export function createContactV2(
  deps: ServiceDeps,
  account: AccountRow,
  input: { phone: string; fields: ContactFields; updateIfExists: boolean },
  forwardBody: unknown,
) {
  requireContactLine(deps, account, input.fields);
  const refuseDuplicate = () => {
    if (!input.updateIfExists && findLiveContact(deps, account.id, input.phone)) {
      throw new AppError(ErrorCode.conflict, `A contact with number ${input.phone} already exists; set update_if_exists to update it`);
    }
  };
  return forwardThenRecord(
    deps,
    account,
    { method: 'POST', path: '/api/v2/contacts', body: forwardBody },
    (now) => {
      const contact = upsertContact(deps, account, input.phone, input.fields, now);
      return { status: 'OK' as const, contact: contactV2View(deps, contact) };
    },
    refuseDuplicate,
  );
}

export function getContactV2(deps: ServiceDeps, account: AccountRow, phone: string) {
  return { status: 'OK' as const, contact: contactV2View(deps, requireLiveContact(deps, account, phone)) };
}

export function updateContactV2(deps: ServiceDeps, account: AccountRow, phone: string, fields: ContactFields, forwardBody: unknown) {
  // Unknown first: whatever else is wrong, someone else's number answers 404 like a number nobody has.
  requireLiveContact(deps, account, phone);
  requireContactLine(deps, account, fields);
  return forwardThenRecord(deps, account, { method: 'PUT', path: contactPath(phone), body: forwardBody }, (now) => {
    const contact = applyContactFields(deps, account, requireLiveContact(deps, account, phone), fields, now);
    return { status: 'OK' as const, contact: contactV2View(deps, contact) };
  });
}

export function listContactsV2(deps: ServiceDeps, account: AccountRow, query: ContactV2ListQuery): ContactV2View[] {
  return deps.store.contacts.listV2(account.id, query).map((row) => toContactV2(row, row.sendblueNumber));
}

export function countContactsV2(deps: ServiceDeps, account: AccountRow) {
  return { count: deps.store.contacts.countLive(account.id) };
}

export function deleteContactV2(deps: ServiceDeps, account: AccountRow, phone: string) {
  requireLiveContact(deps, account, phone);
  return forwardThenRecord(deps, account, { method: 'DELETE', path: contactPath(phone) }, (now) => {
    const contact = findLiveContact(deps, account.id, phone);
    if (contact) deps.store.contacts.softDelete(contact.id, now);
    return { status: 'OK' as const };
  });
}

/** All or nothing: the first duplicate (in the batch or already a contact) refuses the whole batch. */
export function bulkCreateContactsV2(deps: ServiceDeps, account: AccountRow, items: BulkContactInput[], forwardBody: unknown) {
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const first = seen.get(item.phone);
    if (first !== undefined) {
      throw new AppError(ErrorCode.conflict, `contacts[${index}].phone ${item.phone} repeats contacts[${first}].phone`, {
        detail: `contacts[${index}]`,
      });
    }
    seen.set(item.phone, index);
  });
  return forwardThenRecord(
    deps,
    account,
    { method: 'POST', path: '/api/v2/contacts/bulk', body: forwardBody },
    (now) => {
      const created = items.map((item) => upsertContact(deps, account, item.phone, item.fields, now));
      return { status: 'OK' as const, contacts: created.map((contact) => contactV2View(deps, contact)) };
    },
    () => refuseExistingItems(deps, account, items),
  );
}

/** Every item is checked before the first is written (and before the provider is asked). */
function refuseExistingItems(deps: ServiceDeps, account: AccountRow, items: BulkContactInput[]): void {
  items.forEach((item, index) => {
    if (findLiveContact(deps, account.id, item.phone)) {
      throw new AppError(ErrorCode.conflict, `contacts[${index}].phone ${item.phone} is already a contact`, {
        detail: `contacts[${index}]`,
      });
    }
  });
}

/** Each entry is a phone number (with or without +) or a contact_id; unknown entries are skipped. */
export function bulkDeleteContactsV2(deps: ServiceDeps, account: AccountRow, entries: string[], forwardBody: unknown) {
  return forwardThenRecord(deps, account, { method: 'DELETE', path: '/api/v2/contacts', body: forwardBody }, (now) => {
    const deleted = new Set<string>();
    for (const entry of entries) {
      const contact = contactOfEntry(deps, account, entry);
      if (!contact || deleted.has(contact.id)) continue;
      deps.store.contacts.softDelete(contact.id, now);
      deleted.add(contact.id);
    }
    return { status: 'OK' as const, amount: deleted.size };
  });
}

function contactOfEntry(deps: ServiceDeps, account: AccountRow, entry: string): ContactRow | undefined {
  const phone = checkPhoneNumber(/^\d+$/.test(entry) ? `+${entry}` : entry);
  if (phone.ok) return findLiveContact(deps, account.id, phone.e164);
  const byId = deps.store.contacts.findById(account.id, entry);
  return byId && byId.deletedAt === null ? byId : undefined;
}

/** Opts the number out (or back in); an unknown number becomes a contact, so the opt-out holds before any message. */
export function optOutContactV2(deps: ServiceDeps, account: AccountRow, phone: string, optedOut: boolean, forwardBody: unknown) {
  return forwardThenRecord(deps, account, { method: 'POST', path: '/api/v2/contacts/opt-out', body: forwardBody }, (now) => {
    upsertContact(deps, account, phone, { optedOut }, now);
    return { status: 'OK' as const, number: phone, opted_out: optedOut };
  });
}
