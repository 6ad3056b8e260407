/**
 * The SDK's contacts calls (/api/v2/contacts). Contacts are keyed by phone number; a deleted
 * contact is hidden from every read until the number is created again. In relay mode the writes
 * go to the account's provider account first and are recorded here only once it accepted them;
 * reads are answered from local records.
 */

import type { AccountRow, ContactRow } from '../db/rows.ts';
import type { ContactV2ListQuery } from '../db/store.ts';
import { type ContactV2View, toContactV2 } from '../domain/contact-view-v2.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkPhoneNumber } from '../domain/phone.ts';
import { AppError } from './app-error.ts';
import { applyContactFields, type ContactFields, contactV2View, findLiveContact, requireContactLine, upsertContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import type { ProviderAnswer, ProviderRequest } from './provider.ts';
import { refuseOverContactsQuota } from './quotas.ts';
import { inTransaction } from './transactions.ts';

export type BulkContactInput = { phone: string; fields: ContactFields };

/** A write's local effect, given the transaction's deps. */
type Write<T> = (deps: ServiceDeps, now: number) => Promise<T>;

/** A write's local effect, in one transaction; live views hear of it after the commit. */
async function commitContactWrite<T>(deps: ServiceDeps, account: AccountRow, write: Write<T>): Promise<T> {
  const result = await inTransaction(deps, (deps) => write(deps, deps.clock.now()));
  deps.notify.accountActivity?.(account.id);
  return result;
}

/**
 * Relay mode: `refuse` decides from the tenant's own records before its provider account is asked; the call is forwarded, and what it establishes is recorded only when the
 * provider accepted it. A refusal goes back as the provider sent it, a success is answered from our
 * records (our contact ids). Sandbox mode: `refuse` and the write run in one transaction, which is the answer.
 */
async function forwardThenRecord<T>(
  deps: ServiceDeps,
  account: AccountRow,
  request: ProviderRequest,
  record: Write<T>,
  refuse: (deps: ServiceDeps) => Promise<void> = async () => {},
): Promise<T | ProviderAnswer> {
  if (!deps.providers) {
    return commitContactWrite(deps, account, async (deps, now) => {
      await refuse(deps);
      return record(deps, now);
    });
  }
  await refuse(deps);
  const answer = await deps.providers.of(account).call(request);
  return answer.ok ? commitContactWrite(deps, account, record) : answer;
}

async function requireLiveContact(deps: ServiceDeps, account: AccountRow, phone: string): Promise<ContactRow> {
  const contact = await findLiveContact(deps, account.id, phone);
  if (!contact) throw new AppError(ErrorCode.notFound, `No contact with number ${phone}`);
  return contact;
}

const contactPath = (phone: string) => `/api/v2/contacts/${phone}`;

export async function createContactV2(
  deps: ServiceDeps,
  account: AccountRow,
  input: { phone: string; fields: ContactFields; updateIfExists: boolean },
  forwardBody: unknown,
) {
  await requireContactLine(deps, account, input.fields);
  const refuseDuplicate = async (deps: ServiceDeps) => {
    const live = await findLiveContact(deps, account.id, input.phone);
    if (live && !input.updateIfExists) {
      throw new AppError(ErrorCode.conflict, `A contact with number ${input.phone} already exists; set update_if_exists to update it`);
    }
    if (!live) await refuseOverContactsQuota(deps, account.id, 1);
  };
  return forwardThenRecord(
    deps,
    account,
    { method: 'POST', path: '/api/v2/contacts', body: forwardBody },
    async (deps, now) => {
      const contact = await upsertContact(deps, account, input.phone, input.fields, now);
      return { status: 'OK' as const, contact: await contactV2View(deps, contact) };
    },
    refuseDuplicate,
  );
}

export async function getContactV2(deps: ServiceDeps, account: AccountRow, phone: string) {
  return { status: 'OK' as const, contact: await contactV2View(deps, await requireLiveContact(deps, account, phone)) };
}

export async function updateContactV2(deps: ServiceDeps, account: AccountRow, phone: string, fields: ContactFields, forwardBody: unknown) {
  // Unknown first: whatever else is wrong, someone else's number answers 404 like a number nobody has.
  await requireLiveContact(deps, account, phone);
  await requireContactLine(deps, account, fields);
  return forwardThenRecord(deps, account, { method: 'PUT', path: contactPath(phone), body: forwardBody }, async (deps, now) => {
    const contact = await applyContactFields(deps, account, await requireLiveContact(deps, account, phone), fields, now);
    return { status: 'OK' as const, contact: await contactV2View(deps, contact) };
  });
}

export async function listContactsV2(deps: ServiceDeps, account: AccountRow, query: ContactV2ListQuery): Promise<ContactV2View[]> {
  return (await deps.store.contacts.listV2(account.id, query)).map((row) => toContactV2(row, row.sendblueNumber));
}

export async function countContactsV2(deps: ServiceDeps, account: AccountRow) {
  return { count: await deps.store.contacts.countLive(account.id) };
}

export async function deleteContactV2(deps: ServiceDeps, account: AccountRow, phone: string) {
  await requireLiveContact(deps, account, phone);
  return forwardThenRecord(deps, account, { method: 'DELETE', path: contactPath(phone) }, async (deps, now) => {
    const contact = await findLiveContact(deps, account.id, phone);
    if (contact) await deps.store.contacts.softDelete(contact.id, now);
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
    async (deps, now) => {
      const contacts: ContactV2View[] = [];
      for (const item of items) contacts.push(await contactV2View(deps, await upsertContact(deps, account, item.phone, item.fields, now)));
      return { status: 'OK' as const, contacts };
    },
    async (deps) => {
      await refuseExistingItems(deps, account, items);
      await refuseOverContactsQuota(deps, account.id, items.length);
    },
  );
}

/** Every item is checked before the first is written (and before the provider is asked). */
async function refuseExistingItems(deps: ServiceDeps, account: AccountRow, items: BulkContactInput[]): Promise<void> {
  for (const [index, item] of items.entries()) {
    if (await findLiveContact(deps, account.id, item.phone)) {
      throw new AppError(ErrorCode.conflict, `contacts[${index}].phone ${item.phone} is already a contact`, {
        detail: `contacts[${index}]`,
      });
    }
  }
}

/** Each entry is a phone number (with or without +) or a contact_id; unknown entries are skipped. */
export function bulkDeleteContactsV2(deps: ServiceDeps, account: AccountRow, entries: string[], forwardBody: unknown) {
  return forwardThenRecord(deps, account, { method: 'DELETE', path: '/api/v2/contacts', body: forwardBody }, async (deps, now) => {
    const deleted = new Set<string>();
    for (const entry of entries) {
      const contact = await contactOfEntry(deps, account, entry);
      if (!contact || deleted.has(contact.id)) continue;
      await deps.store.contacts.softDelete(contact.id, now);
      deleted.add(contact.id);
    }
    return { status: 'OK' as const, amount: deleted.size };
  });
}

async function contactOfEntry(deps: ServiceDeps, account: AccountRow, entry: string): Promise<ContactRow | undefined> {
  const phone = checkPhoneNumber(/^\d+$/.test(entry) ? `+${entry}` : entry);
  if (phone.ok) return findLiveContact(deps, account.id, phone.e164);
  const byId = await deps.store.contacts.findById(account.id, entry);
  return byId && byId.deletedAt === null ? byId : undefined;
}

/** Opts the number out (or back in); an unknown number becomes a contact, so the opt-out holds before any message. */
export function optOutContactV2(deps: ServiceDeps, account: AccountRow, phone: string, optedOut: boolean, forwardBody: unknown) {
  return forwardThenRecord(deps, account, { method: 'POST', path: '/api/v2/contacts/opt-out', body: forwardBody }, async (deps, now) => {
    await upsertContact(deps, account, phone, { optedOut }, now);
    return { status: 'OK' as const, number: phone, opted_out: optedOut };
  });
}
