import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PLANS } from '../domain/limits.ts';
import { MESSAGE_STATUSES } from '../domain/status.ts';

/** Times are epoch milliseconds (integers): cheap to compare, index and convert to every API format. */

export const accounts = sqliteTable('accounts', {
  id: text().primaryKey(),
  email: text().notNull().unique(),
  plan: text({ enum: PLANS }).notNull(),
  apiKeyId: text().notNull().unique(),
  /** SHA-256 of the secret: the secret is 256 random bits, so a slow KDF would add latency to every request and no safety. */
  apiSecretHash: text().notNull(),
  createdAt: integer().notNull(),
});

/** The account's lines: the service phone numbers its messages are sent from. */
export const serviceNumbers = sqliteTable(
  'service_numbers',
  {
    number: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** How many end users are pinned to this line; kept here so picking the least-loaded line is one indexed read. */
    pinnedCount: integer().notNull().default(0),
    createdAt: integer().notNull(),
  },
  (t) => [
    // pickLeastLoadedLine: the account's lines ordered by load.
    index('service_numbers_account_load_idx').on(t.accountId, t.pinnedCount),
  ],
);

/** Each end user talks to an account through one line only, chosen the first time they are in touch. */
export const numberPins = sqliteTable(
  'number_pins',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    endUserNumber: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.endUserNumber] })],
);

/** URLs that receive the account's inbound messages. */
export const receiveWebhooks = sqliteTable(
  'receive_webhooks',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    url: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.url] })],
);

export const contacts = sqliteTable(
  'contacts',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    phone: text().notNull(),
    firstName: text().notNull(),
    lastName: text().notNull(),
    companyName: text().notNull().default(''),
    // The conversation summary is kept on the contact so listings sort by it without touching messages.
    lastMessageAt: integer(),
    previewText: text().notNull().default(''),
    lastInboundAt: integer(),
    lastOutboundAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [
    // One contact per person per account; also the lookup by phone on every send.
    uniqueIndex('contacts_account_phone_uq').on(t.accountId, t.phone),
    // Contact listing, one index per order_by choice (id breaks ties so pages never overlap).
    index('contacts_account_last_date_idx').on(t.accountId, t.lastMessageAt, t.id),
    index('contacts_account_first_name_idx').on(t.accountId, t.firstName, t.id),
    index('contacts_account_last_name_idx').on(t.accountId, t.lastName, t.id),
    index('contacts_account_created_idx').on(t.accountId, t.createdAt, t.id),
  ],
);

/** A group chat is identified by its set of end users: the same set always reuses the same group. */
export const groups = sqliteTable(
  'groups',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** The members' E.164 numbers, sorted and comma-joined: the set as a comparable value. */
    memberKey: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    displayName: text().notNull().default(''),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    // findGroupByMembers on every group send by numbers; unique so one set maps to one group.
    uniqueIndex('groups_account_members_uq').on(t.accountId, t.memberKey),
  ],
);

export const groupMembers = sqliteTable(
  'group_members',
  {
    groupId: text()
      .notNull()
      .references(() => groups.id),
    number: text().notNull(),
    addedAt: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.number] }),
    // Message listing by `number` also finds the groups that number belongs to.
    index('group_members_number_idx').on(t.number, t.groupId),
  ],
);

export const messages = sqliteTable(
  'messages',
  {
    /** Insertion order: breaks ties between messages of the same millisecond in listings. */
    id: integer().primaryKey({ autoIncrement: true }),
    handle: text().notNull().unique(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    isOutbound: integer({ mode: 'boolean' }).notNull(),
    messageType: text({ enum: ['message', 'group'] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: integer(),
    errorMessage: text(),
    errorDetail: text(),
    content: text().notNull().default(''),
    mediaUrl: text().notNull().default(''),
    sendStyle: text().notNull().default(''),
    statusCallback: text(),
    /** The account's line this message went out on or came in to. */
    lineNumber: text().notNull(),
    /** The end user: the recipient of a single send, the sender of an inbound message, '' for an outbound group send. */
    number: text().notNull(),
    /** Outbound group sends: the members at the time of sending. */
    recipients: text({ mode: 'json' }).$type<string[]>(),
    contactId: text().references(() => contacts.id),
    groupId: text().references(() => groups.id),
    wasDowngraded: integer({ mode: 'boolean' }),
    dateSent: integer().notNull(),
    dateUpdated: integer().notNull(),
  },
  (t) => [
    // Unfiltered listing (newest first) and from_date.
    index('messages_account_date_idx').on(t.accountId, t.dateSent, t.id),
    // Listing by cid.
    index('messages_account_contact_date_idx').on(t.accountId, t.contactId, t.dateSent, t.id),
    // Listing by number (single conversations).
    index('messages_account_number_date_idx').on(t.accountId, t.number, t.dateSent, t.id),
    // Listing by group_id, and by number through group membership.
    index('messages_account_group_date_idx').on(t.accountId, t.groupId, t.dateSent, t.id),
    // Listing by status.
    index('messages_account_status_date_idx').on(t.accountId, t.status, t.dateSent, t.id),
  ],
);

/** Every status event received for a message, applied or not, with the reason when not. */
export const statusEvents = sqliteTable(
  'status_events',
  {
    id: text().primaryKey(),
    /** No foreign key: an event may arrive before the send that created its handle is stored. */
    messageHandle: text().notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: integer(),
    errorMessage: text(),
    /** Who reported it: 'api' for the send itself, otherwise the transport's name. */
    source: text().notNull(),
    applied: integer({ mode: 'boolean' }).notNull(),
    implied: integer({ mode: 'boolean' }).notNull().default(false),
    notAppliedReason: text(),
    receivedAt: integer().notNull(),
  },
  (t) => [
    // A message's history, in arrival order.
    index('status_events_handle_idx').on(t.messageHandle, t.receivedAt),
  ],
);

/** Answers to sends made with an Idempotency-Key, replayed for 24 h. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    key: text().notNull(),
    requestHash: text().notNull(),
    responseStatus: integer().notNull(),
    responseBody: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);
