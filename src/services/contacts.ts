import type { AccountRow, ContactRow } from '../db/rows.ts';
import type { ContactFieldsUpdate, ContactListQuery, NewAccountEvent, OutboxEntry } from '../db/store.ts';
import { type ContactV2View, toContactV2 } from '../domain/contact-view-v2.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { toContactData, toContactView } from '../domain/views.ts';
import { accountEvent } from './account-events.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { timeOrderedUuid } from './ids.ts';
import { refuseOverContactsQuota } from './quotas.ts';
import { inTransaction } from './transactions.ts';
import { fanOutDeliveries, queueDeliveries } from './webhook-fanout.ts';

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

/** The SDK's view of a contact, with the line its person is pinned to. */
export async function contactV2View(deps: ServiceDeps, contact: ContactRow): Promise<ContactV2View> {
  return toContactV2(contact, (await deps.store.accounts.findPinnedLine(contact.accountId, contact.phone)) ?? '');
}

/** A live contact (not deleted) of the account with this number. */
export async function findLiveContact(deps: ServiceDeps, accountId: string, phone: string): Promise<ContactRow | undefined> {
  const row = await deps.store.contacts.findByPhone(accountId, phone);
  return row && row.deletedAt === null ? row : undefined;
}

/**
 * Tells the account a contact was created: its contact_created webhooks and the contact.created
 * event. Call inside the creating transaction; the caller notifies the outbox after the commit.
 */
async function announceContactCreated(
  deps: ServiceDeps,
  account: AccountRow,
  contact: ContactRow,
  now: number,
  pinnedLine?: string,
): Promise<void> {
  const news = await contactCreatedNews(deps, account, contact, now, pinnedLine);
  await queueDeliveries(deps, news.callbacks, now);
  await deps.store.accountEvents.append(news.accountEvent);
}

/** What announceContactCreated writes; `pinnedLine`: the person's pin, when the caller knows it. */
async function contactCreatedNews(
  deps: ServiceDeps,
  account: AccountRow,
  contact: ContactRow,
  now: number,
  pinnedLine?: string,
): Promise<{ callbacks: OutboxEntry[]; accountEvent: NewAccountEvent }> {
  // Read first: the payload (and the pin it shows) is built only for an account that listens.
  const webhooks = await deps.store.webhookSubscriptions.ofType(account.id, 'contact_created');
  let callbacks: OutboxEntry[] = [];
  if (webhooks.length > 0) {
    const view = pinnedLine === undefined ? await contactV2View(deps, contact) : toContactV2(contact, pinnedLine);
    const payload = JSON.stringify(view);
    callbacks = fanOutDeliveries(account, webhooks, {
      type: 'contact_created',
      eventType: 'contact.created',
      orderKey: `contact:${contact.id}`,
      payload,
    });
  }
  return { callbacks, accountEvent: accountEvent(account.id, 'contact.created', { contact_id: contact.id, phone: contact.phone }, now) };
}

/** What a write may set on a contact: its stored fields, and the line to pin its person to. */
export type ContactFields = ContactFieldsUpdate & { sendblueNumber?: string | undefined };

/** Checks that a chosen line is the account's, before anything is written or forwarded. */
export async function requireContactLine(deps: ServiceDeps, account: AccountRow, fields: ContactFields): Promise<void> {
  const line = fields.sendblueNumber;
  if (line !== undefined && !(await deps.store.accounts.listServiceNumbers(account.id)).includes(line)) {
    throw new AppError(ErrorCode.validation, `sendblue_number ${line} is not one of this account's lines`);
  }
}

/** Writes the fields; a chosen line pins the person when they are not pinned yet (a pin never moves). */
export async function applyContactFields(
  deps: ServiceDeps,
  account: AccountRow,
  contact: ContactRow,
  fields: ContactFields,
  now: number,
): Promise<ContactRow> {
  const { sendblueNumber, ...stored } = fields;
  if (sendblueNumber !== undefined && (await deps.store.accounts.findPinnedLine(account.id, contact.phone)) === undefined) {
    await deps.store.accounts.pinEndUser(account.id, contact.phone, sendblueNumber, now);
  }
  if (Object.keys(stored).length === 0) return contact;
  await deps.store.contacts.update(contact.id, stored, now);
  return { ...contact, ...stored, updatedAt: now };
}

/**
 * Creates the contact of a number the account has no live contact for: a new row, or the deleted
 * one brought back fresh. Either way it is a creation, announced with its fields. Call inside a
 * transaction, after requireContactLine.
 */
export async function createLiveContact(
  deps: ServiceDeps,
  account: AccountRow,
  phone: string,
  fields: ContactFields,
  now: number,
): Promise<ContactRow> {
  return createContactOver(deps, account, phone, fields, now, await deps.store.contacts.findByPhone(account.id, phone));
}

/** createLiveContact once the number's row was read: `existing` (live, deleted, or none); `pinnedLine` as contactCreatedNews's. */
async function createContactOver(
  deps: ServiceDeps,
  account: AccountRow,
  phone: string,
  fields: ContactFields,
  now: number,
  existing: ContactRow | undefined,
  pinnedLine?: string,
): Promise<ContactRow> {
  if (existing && existing.deletedAt === null) throw new AppError(ErrorCode.conflict, `A contact with number ${phone} already exists`);
  let row: ContactRow;
  if (existing) {
    row = await deps.store.contacts.revive(existing.id, now);
  } else {
    row = newContactRow(account.id, { firstName: '', lastName: '', phone }, now);
    if (!(await deps.store.contacts.insert(row))) throw new AppError(ErrorCode.conflict, `A contact with number ${phone} already exists`);
  }
  row = await applyContactFields(deps, account, row, fields, now);
  await announceContactCreated(deps, account, row, now, pinnedLine);
  return row;
}

/** Creates the contact, or updates it when it exists. Call inside a transaction, after requireContactLine. */
export async function upsertContact(
  deps: ServiceDeps,
  account: AccountRow,
  phone: string,
  fields: ContactFields,
  now: number,
): Promise<ContactRow> {
  const live = await findLiveContact(deps, account.id, phone);
  return live ? await applyContactFields(deps, account, live, fields, now) : await createLiveContact(deps, account, phone, fields, now);
}

export async function createContact(deps: ServiceDeps, account: AccountRow, input: CreateContactInput) {
  const row = await inTransaction(deps, async (deps) => {
    if (await findLiveContact(deps, account.id, input.phone)) throw new AppError(ErrorCode.conflict, 'Contact already exists');
    await refuseOverContactsQuota(deps, account.id, 1);
    const { phone, ...names } = input;
    return createLiveContact(deps, account, phone, names, deps.clock.now());
  });
  deps.notify.accountActivity?.(account.id);
  return { status: 'OK' as const, contact: row.id, contactData: toContactData(row, account.email) };
}

/**
 * The contact for this number, created with empty names when the account has no live contact for
 * it: messaging someone makes them a contact. Call inside the sending transaction. Every send runs
 * this: an existing contact costs one lookup; only a creation reads the account and announces.
 */
export async function ensureContact(deps: ServiceDeps, accountId: string, phone: string, now: number): Promise<ContactRow> {
  const existing = await deps.store.contacts.findByPhone(accountId, phone);
  if (existing && existing.deletedAt === null) return existing;
  const account = await deps.store.accounts.findById(accountId);
  if (!account) throw new Error(`account ${accountId} vanished while creating a contact`);
  return createContactOver(deps, account, phone, {}, now, existing);
}

/**
 * The contact of a send's end user, who is pinned to `pinnedLine` once the send commits: `known`
 * when live (the row the caller read, none when undefined), a deleted one brought back, or else a
 * new row (`created`) with its announcement, which the send's whole write writes with the message.
 */
export async function contactOfSend(
  deps: ServiceDeps,
  account: AccountRow,
  phone: string,
  now: number,
  known: ContactRow | undefined,
  pinnedLine: string,
): Promise<{ contact: ContactRow; created?: { row: ContactRow; accountEvent: NewAccountEvent; callbacks: OutboxEntry[] } }> {
  if (known && known.deletedAt === null) return { contact: known };
  if (known) return { contact: await createContactOver(deps, account, phone, {}, now, known, pinnedLine) };
  const row = newContactRow(account.id, { firstName: '', lastName: '', phone }, now);
  return { contact: row, created: { row, ...(await contactCreatedNews(deps, account, row, now, pinnedLine)) } };
}

/**
 * Sends to someone who opted out are refused (400), whatever the route: messages, group sends,
 * typing indicators. Call before writing anything; answers the contact row it read (deleted ones
 * included: an opt-out outlives the contact), so a send looks its contact up once.
 */
export async function refuseIfOptedOut(deps: ServiceDeps, accountId: string, number: string): Promise<ContactRow | undefined> {
  return refuseOptedOut(await deps.store.contacts.findByPhone(accountId, number), number);
}

/** refuseIfOptedOut once the number's contact row was read (`contact`: none when undefined). */
export function refuseOptedOut(contact: ContactRow | undefined, number: string): ContactRow | undefined {
  if (contact?.optedOut) {
    throw new AppError(
      ErrorCode.validation,
      `${number} has opted out of messages from this account (it replied STOP or was opted out through the API)`,
    );
  }
  return contact;
}

export async function getContact(deps: ServiceDeps, account: AccountRow, contactId: string) {
  const row = await deps.store.contacts.findById(account.id, contactId);
  if (!row || row.deletedAt !== null) throw new AppError(ErrorCode.notFound, 'Contact not found');
  return toContactView(row, account.email, deps.displayTimeZone);
}

export async function listContacts(deps: ServiceDeps, account: AccountRow, query: ContactListQuery) {
  return (await deps.store.contacts.list(account.id, query)).map((row) => toContactView(row, account.email, deps.displayTimeZone));
}
